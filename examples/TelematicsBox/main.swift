// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// A telematics box in a few dozen lines: every location recorded into a track journal sealed to
// the fleet's public key, and published to the fleet's MQTT broker as OwnTracks JSON, kept in an
// outbox until the broker has it.
//
//     gpsloc journal keygen --private-key fleet.key --public-key journal.pub
//     swift run telematics-box 'file:fixtures/drive-1hz.nmea?speed=max' journal.pub box mqtt://localhost
//
// It is an app like any other (OPENCORELOCATION_APP, OPENCORELOCATION_MANIFEST, or gpslocd's
// decision for this program), holding an Always session.

#if MQTT
    import GNSSSources
    import LocationEngine
    import LocationHosting
    import Telematics
    import TrackJournal

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count == 4, let broker = MQTTPublisher.Settings.endpoint(arguments[3]) else {
        print("usage: telematics-box SOURCE PUBLIC-KEY DIRECTORY mqtt://HOST[:PORT]")
        exit(2)
    }
    let (source, key, directory) = (arguments[0], arguments[1], arguments[2])
    let say: @Sendable (String) -> Void = { print("telematics-box: " + $0) }

    /// Records and publishes until the source ends (a log played out) or fails.
    func run() async throws {
        mkdir(directory, 0o700)
        let receiver = LocationService(
            source: try SourceAddress(parsing: source).open(journals: JournalReplay()))
        let context = LocationContext.fromEnvironment(service: receiver)
        let journal = try JournalWriter(
            directory: directory + "/journal", recipient: try JournalKeys.publicKey(contentsOf: key))
        let recorder = TrackRecorder(journal, say: say)
        let settings = MQTTPublisher.Settings(
            host: broker.host, port: broker.port, clientID: "telematics-box")
        let uplink = try UplinkQueue(
            outbox: UplinkOutbox(directory: directory + "/outbox", capBytes: 16 << 20),
            topic: "owntracks/box/van", connect: { try MQTTPublisher(settings, events: $0) }, say: say)

        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await recorder.record(from: context, nmea: false) }
            group.addTask {
                let session = context.holdSession(.always)
                defer { session.invalidate() }
                for await update in context.liveUpdates(for: .default) {
                    guard let location = update.location else { continue }
                    uplink.send(OwnTracks.message(location, reduced: update.flags.accuracyLimited, tid: "VB"))
                }
            }
        }
        await uplink.drain(within: .seconds(10))
        try recorder.close()
        say(
            "\(recorder.written) in the journal, \(uplink.waiting) messages left in the outbox"
        )
        uplink.stop()
    }

    do {
        try await run()
    } catch {
        print("telematics-box: error: \(error)")
        exit(1)
    }
#else
    print("telematics-box: this build has no MQTT (build with the MQTT trait, the default)")
#endif
