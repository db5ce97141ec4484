// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if MQTT
    import ArgumentParser
    import DescriptorIO
    import Dispatch
    import FoundationEssentials
    import GNSS
    import Telematics
    import Locking
    import LocationEngine
    import LocationHosting

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    struct Uplink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Publish every location update to an MQTT broker as OwnTracks JSON, storing what it cannot send yet.",
            discussion: """
                An app like any other (a client of gpslocd under its own decision, or with --source the \
                app named by --app), holding an Always session: an approximate grant publishes reduced \
                locations only (no alt, vac, vel or cog). Each update is kept in the outbox before it is \
                sent (QoS 1, a persistent session) and counts as delivered when the broker acknowledges \
                it: while the broker is unreachable the outbox grows, and when it is back the messages \
                go out in order. After a restart, what was not acknowledged is sent again (QoS 1 allows \
                duplicates; OwnTracks consumers drop them by tst).
                """
        )

        @OptionGroup var options: AppOptions

        @Option(help: "The broker: mqtt://HOST[:PORT] (1883) or mqtts://HOST[:PORT] (8883, TLS).")
        var broker: String

        @Option(help: "The topic (default owntracks/USER/DEVICE: this user's name and this host's).")
        var topic: String?

        @Option(
            help: "OwnTracks' tracker id, shown on maps (two characters; default the device's first two).")
        var tid: String?

        @Option(
            help:
                "The MQTT client id, fixed so that the broker keeps the session (default gpsloc-uplink-HOST)."
        )
        var clientID: String?

        @Option(help: "Log in with this username...")
        var username: String?

        @Option(help: "...and the password in this file (its first line).")
        var passwordFile: String?

        @Option(help: "TLS: the CA certificate that signed the broker's (PEM).")
        var cafile: String?

        @Option(help: "TLS: this client's certificate (PEM), to log in by certificate...")
        var cert: String?

        @Option(help: "...and its key (PEM).")
        var certKey: String?

        @Option(help: "Where unsent messages are kept (made when missing, mode 0700).")
        var outbox: String

        // Optional, so that the parser does not print 67108864 after the help's 64 MiB.
        @Option(
            name: .customLong("outbox-size"),
            help:
                "The outbox's cap in bytes: past it, the oldest unsent messages go, counted (default 64 MiB)."
        )
        var outboxSizeOption: Int?
        var outboxSize: Int { outboxSizeOption ?? 64 << 20 }

        func validate() throws {
            guard MQTTPublisher.Settings.endpoint(broker) != nil else {
                throw ValidationError("--broker \(broker) is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
            }
            if (cert == nil) != (certKey == nil) {
                throw ValidationError("--cert and --cert-key go together")
            }
            if passwordFile != nil && username == nil {
                throw ValidationError("--password-file needs --username")
            }
        }

        func run() async throws {
            let (host, port, tls) = MQTTPublisher.Settings.endpoint(broker)!
            let device =
                ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "box"
            let user = UserDatabase.user(uid: getuid())?.name ?? "gpsloc"
            let topic = topic ?? "owntracks/\(user)/\(device)"
            let tid = tid ?? String(device.prefix(2))
            var password: String?
            if let passwordFile {
                guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                    printError("gpsloc uplink: error: --password-file \(passwordFile) cannot be read")
                    throw ExitCode.failure
                }
                password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            }
            let settings = MQTTPublisher.Settings(
                host: host, port: port, clientID: clientID ?? "gpsloc-uplink-\(device)", username: username,
                password: password, caFile: cafile ?? (tls ? "/etc/ssl/certs/ca-certificates.crt" : nil),
                certificateFile: cert, keyFile: certKey)
            let queue: UplinkQueue
            do {
                queue = try UplinkQueue(
                    outbox: UplinkOutbox(directory: outbox, capBytes: outboxSize), topic: topic,
                    connect: { try MQTTPublisher(settings, events: $0) },
                    say: { printError("gpsloc uplink: " + $0) })
            } catch {
                printError("gpsloc uplink: error: \(error)")
                throw ExitCode.failure
            }
            printError(
                "gpsloc uplink: publishing to \(broker) on \(topic); \(counted(queue.waiting, "message", "messages")) from the outbox first"
            )
            let context = try options.makeContext(command: "uplink")
            let publishing = Task {
                let session = context.holdSession(.always)
                defer { session.invalidate() }
                for await update in context.liveUpdates(for: .default) {
                    guard let location = update.location else { continue }
                    queue.send(OwnTracks.message(location, reduced: update.flags.accuracyLimited, tid: tid))
                }
            }
            let signals = onTermination { publishing.cancel() }
            defer { signals.forEach { $0.cancel() } }
            await publishing.value
            // The updates ended (a replayed log played out, or a signal): what is queued goes out
            // before the uplink does (a while).
            await queue.drain(within: .seconds(10))
            queue.stop()
            try AppOptions.checkSource(of: context)
        }
    }

#endif
