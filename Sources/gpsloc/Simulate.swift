import ArgumentParser

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a simulated NMEA log.")
    func run() throws {}
}
