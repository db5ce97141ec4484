// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import LocationWire

/// The daemon's protocol as a client sees it: what it accepts, and what its refusals say.
@Suite("The wire: JSON lines between gpslocd and its clients")
struct WireProtocolTests {
    @Test(
        "a malformed request is refused with the member at fault named",
        arguments: [
            ("not json", "not valid JSON"),
            ("[1,2]", "one JSON object per line"),
            ("{}", "has no 'op'"),
            (#"{"op":"fly"}"#, "'fly' is not a request"),
            (#"{"op":"session.open","session":1}"#, "needs 'authorization'"),
            (
                #"{"op":"session.open","session":"one","authorization":"always"}"#,
                "'session' must be a whole number"
            ),
            (#"{"op":"session.open","session":1,"authorization":"sometimes"}"#, "'sometimes' is not a level"),
            (#"{"op":"updates.subscribe"}"#, "needs 'subscription'"),
            (
                #"{"op":"auth.grant","app":"x","level":"always","once":true}"#,
                "'once' applies to when-in-use only"
            ),
            (#"{"op":"auth.reset","app":"x","all":true}"#, "not both"),
            (#"{"op":"agent.answer","prompt":1,"answer":"maybe"}"#, "'maybe' is not an answer"),
            (#"{"op":"activity","inUse":1}"#, "'inUse' must be true or false"),
            (#"{"op":"monitor.add","monitor":"m","identifier":"x"}"#, "needs 'condition'"),
            (#"{"op":"monitor.add","monitor":"m","identifier":"x","condition":{}}"#, "'circle' is missing"),
            (
                #"{"op":"monitor.add","monitor":"","identifier":"x","condition":{"circle":{"lat":1,"lon":2,"radius":3}}}"#,
                "'monitor' must be 1 to 256 bytes long"
            ),
            (
                #"{"op":"monitor.add","monitor":"m","identifier":"x","condition":{"circle":{"lat":1,"lon":2,"radius":3}},"assuming":"inside"}"#,
                "'assuming' is 'inside'"
            ),
            (#"{"op":"monitor.consumed"}"#, "needs 'sequence'"),
        ])
    func refusals(_ line: String, _ says: String) {
        #expect {
            _ = try WireRequest.parse(Array(line.utf8))
        } throws: { error in
            "\(error)".contains(says)
        }
    }

    @Test("every request reads back as it was written")
    func roundTrip() throws {
        let requests: [WireRequest] = [
            .hello(version: 1, receiver: "serial:/dev/ttyUSB0"),
            .openSession(session: 3, level: .always, purposeKey: "Navigation"),
            .openBackgroundSession(session: 4), .closeSession(session: 3),
            .subscribeUpdates(subscription: 5, configuration: 1, monitoring: false),
            .subscribeUpdates(subscription: 6, configuration: 0, monitoring: true),
            .subscribeUpdates(
                subscription: 7, configuration: 2, monitoring: false, reduced: true, continuous: true,
                implicitSession: false),
            .subscribeDiagnostics(subscription: 7, session: 4), .unsubscribe(subscription: 5),
            .requestAuthorization(.always), .requestTemporaryFullAccuracy(request: 8, purposeKey: "Delivery"),
            .activity(inUse: false), .showAuthorization(uid: 1000),
            .changeAuthorization(
                uid: 1000, .grant(app: "com.example.a", always: false, approximate: true, once: true)),
            .changeAuthorization(uid: nil, .deny(app: "b \"quoted\"")),
            .changeAuthorization(uid: nil, .reset(app: nil)),
            .changeAuthorization(uid: nil, .services(enabled: false)),
            .changeAuthorization(uid: 7, .restrict(app: "c", lift: true)), .registerAgent,
            .answerPrompt(prompt: 9, .allowWhileUsingApproximate),
            .addCondition(
                monitor: "trips", identifier: "depot", .circle(latitude: 52.5, longitude: -4.25, radius: 150),
                assuming: .unsatisfied),
            .addCondition(
                monitor: "b", identifier: "door",
                .beacon(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: nil),
                assuming: .unknown),
            .removeCondition(monitor: "trips", identifier: "depot"), .monitorRecords(monitor: "trips"),
            .subscribeMonitor(subscription: 10, monitor: "trips"), .consumedEvent(sequence: 11),
        ]
        for request in requests {
            let line = request.encoded(id: 42)
            #expect(line.last == UInt8(ascii: "\n"))
            let parsed = try WireRequest.parse(line.dropLast())
            #expect(parsed.id == 42)
            #expect(parsed.request == request)
        }
    }

    /// A circle's centre is written to the nanodegree and its radius to the millimetre: the
    /// daemon holds what it reads at that resolution, so the condition it keeps is the one its
    /// client reads back, and writing it again changes nothing. (92.33720368547758 m is the radius
    /// the request fuzzer found read back as 92.337.)
    @Test("a circle is held at the resolution the line writes")
    func circleResolution() throws {
        let line = Array(
            #"{"op":"monitor.add","monitor":"m","identifier":"x","condition":{"circle":{"lat":52.3730941234567,"lon":-4.0000000004,"radius":92.33720368547758}}}"#
                .utf8)
        let (_, request) = try WireRequest.parse(line)
        #expect(
            request
                == .addCondition(
                    monitor: "m", identifier: "x",
                    .circle(latitude: 52.373_094_123, longitude: -4, radius: 92.337), assuming: .unknown))
        let again = try WireRequest.parse(request.encoded().dropLast())
        #expect(again.request == request)
    }

    @Test("every event reads back as it was written")
    func events() throws {
        let identity = WireIdentity(
            app: "com.example.a", uid: 1000, pid: 77, executable: "/usr/bin/a", unit: nil, flatpak: nil,
            registered: true)
        let location = WireLocation(
            latitude: 52.373094, longitude: 4.892626, altitude: 12, ellipsoidalAltitude: 55.5,
            horizontalAccuracy: 2.5,
            verticalAccuracy: 3.25, speed: 2, speedAccuracy: -1, course: 114.5, courseAccuracy: -1,
            time: 1_773_475_200.5)
        var headed = location
        headed.heading = 274.07
        headed.magneticHeading = 272.57
        let events: [WireEvent] = [
            .hello(
                id: 1, identity: identity,
                .init(status: "authorizedAlways", accuracy: "fullAccuracy", servicesEnabled: true)),
            .ok(id: 2), .error(id: nil, message: "no \"such\" session"),
            .update(
                subscription: 3,
                .init(flags: ["accuracyLimited"], stationary: false, unavailable: false, location: location)),
            .update(subscription: 3, .init(flags: [], stationary: false, unavailable: true, location: nil)),
            .update(
                subscription: 3, .init(flags: [], stationary: false, unavailable: false, location: headed)),
            .diagnostic(subscription: 4, flags: ["insufficientlyInUse", "authorizationRequestInProgress"]),
            .why(subscription: 3, text: "/usr/bin/socat (uid 1000) may not have \"location\""),
            .finish(subscription: 4), .accuracyAnswer(request: 5, error: "18:declined"),
            .accuracyAnswer(request: 6, error: nil),
            .prompt(
                prompt: 7,
                .init(
                    kind: "whenInUse", identity: identity, reason: "To map", purposeKey: nil,
                    defaultsToApproximate: true)),
            .withdraw(prompt: 7),
            .decisions(
                id: 8,
                .init(
                    store: "/var/lib/x", uid: 1000, servicesEnabled: false, restrictAll: false,
                    restricted: ["z"], decisions: ["a": "denied"])),
            .records(
                id: 9,
                [
                    .init(
                        identifier: "depot", condition: .circle(latitude: 52.5, longitude: 4.25, radius: 150),
                        state: .satisfied, date: 1_773_475_200.5, generation: 2)
                ]),
            .monitorEvent(
                subscription: 10,
                .init(
                    identifier: "depot", state: .unsatisfied, date: 1_773_475_260.25,
                    flags: ["insufficientlyInUse"],
                    generation: 2, sequence: 12)),
        ]
        for event in events {
            #expect(try WireEvent.parse(event.encoded().dropLast()) == event)
        }
    }

    @Test("lines are cut wherever the bytes split, and a line past the bound is refused before its end")
    func splitter() throws {
        let lines = [#"{"op":"hello","version":1}"#, "", #"{"op":"activity","inUse":false}"#]
        let bytes = Array(lines.joined(separator: "\r\n").utf8) + [10]
        for cut in 0...bytes.count {
            var splitter = LineSplitter(maximumLength: 64)
            let got = try splitter.append(bytes[..<cut]) + splitter.append(bytes[cut...])
            #expect(got.map { String(decoding: $0, as: UTF8.self) } == lines)
        }
        var bounded = LineSplitter(maximumLength: 16)
        #expect(throws: WireError.self) {
            _ = try bounded.append(Array(repeating: UInt8(ascii: "x"), count: 17))
        }
    }
}
