// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Logging

/// A log handler that shows text from outside (a gpsd's VERSION or ERROR, a device's name, a
/// sentence) on a terminal as text: control characters and escape sequences in a message or its
/// metadata are written as `\u{1B}`-style escapes (``terminalSafe(_:keepingLineBreaks:)``), so a
/// peer cannot move the cursor, rewrite earlier lines or retitle the terminal.
package struct TerminalSafeLogHandler: LogHandler {
    private var wrapped: any LogHandler

    package init(_ wrapped: any LogHandler) { self.wrapped = wrapped }

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    package func log(event: LogEvent) {
        var event = event
        event.message = "\(terminalSafe(event.message.description))"
        event.metadata = event.metadata?.mapValues { .string(terminalSafe($0.description)) }
        wrapped.log(event: event)
    }
}
