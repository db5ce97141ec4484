import NMEA

// Our side of `tools/compare-peers`' parse race: frames an NMEA log, checks every checksum,
// parses every sentence into its typed value, reads a field of each so that nothing can be
// optimised away, and prints the counts in the same shape as the other parsers' harnesses.
//
//     nmea-parse [FILE]      (standard input without FILE)
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the harness counts.
struct Tally {
    static let names = [
        "RMC", "GGA", "GSA", "GSV", "VTG", "GLL", "GNS", "GST", "ZDA", "GBS", "HDT", "TXT", "DTM",
        "proprietary",
        "unknown",
    ]
    var typed = [Int](repeating: 0, count: names.count)
    var unparsable = 0
    var satellites = 0
    var latitudes = 0.0

    mutating func add(_ framed: FramedSentence) {
        let sentence: NMEASentence
        do {
            sentence = try framed.parse()
        } catch {
            unparsable += 1
            return
        }
        switch sentence {
        case .rmc(let s):
            typed[0] += 1
            latitudes += s.latitude?.degrees ?? 0
        case .gga(let s):
            typed[1] += 1
            latitudes += s.latitude?.degrees ?? 0
        case .gsa(let s):
            typed[2] += 1
            satellites += s.satellites.count
        case .gsv(let s):
            typed[3] += 1
            satellites += s.satellites.count
        case .vtg: typed[4] += 1
        case .gll(let s):
            typed[5] += 1
            latitudes += s.latitude?.degrees ?? 0
        case .gns: typed[6] += 1
        case .gst: typed[7] += 1
        case .zda: typed[8] += 1
        case .gbs: typed[9] += 1
        case .hdt: typed[10] += 1
        case .txt: typed[11] += 1
        case .dtm: typed[12] += 1
        case .proprietary: typed[13] += 1
        case .unknown: typed[14] += 1
        }
    }
}

@main
enum NMEAParse {
    static func main() {
        var descriptor: Int32 = 0
        if let path = CommandLine.arguments.dropFirst().first, path != "-" {
            descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { fail("cannot open '\(path)': \(String(cString: strerror(errno)))") }
        }
        var framer = NMEAFramer()
        var tally = Tally()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                fail("cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            framer.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { tally.add($0) }
        }
        framer.finish { tally.add($0) }
        let statistics = framer.statistics
        var line = "nmea-parse sentences=\(statistics.sentences - tally.unparsable)"
        line += " rejected=\(statistics.rejected + tally.unparsable) satellites=\(tally.satellites)"
        line += " latitude-sum=\(threeDecimals(tally.latitudes))"
        for (name, count) in zip(Tally.names, tally.typed) where count > 0 { line += " \(name)=\(count)" }
        print(line)
    }

    static func fail(_ message: String) -> Never {
        let text = Array("nmea-parse: \(message)\n".utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }

    /// `value` with three decimals, without Foundation.
    static func threeDecimals(_ value: Double) -> String {
        let thousandths = Int64((value * 1000).rounded())
        let magnitude = thousandths.magnitude
        let fraction = String(magnitude % 1000)
        let padding = String(repeating: "0", count: 3 - fraction.count)
        return "\(thousandths < 0 ? "-" : "")\(magnitude / 1000).\(padding)\(fraction)"
    }
}
