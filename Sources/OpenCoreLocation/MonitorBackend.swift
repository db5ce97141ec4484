// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// What a ``CLMonitor`` talks to: the monitor kept and evaluated in this process
/// (``MonitorCore``), or the one gpslocd keeps and evaluates for the app (``RemoteMonitor``).
/// Every `CLMonitor` opened with one name in one context shares one backend.
protocol MonitorBackend: AnyObject, Sendable {
    func add(_ condition: any CLCondition, identifier: String, assuming: CLMonitoringState)
    func remove(_ identifier: String)
    /// The identifiers of the conditions, in the order they were added.
    var identifiers: [String] { get }
    func record(for identifier: String) -> CLMonitor.Record?
    /// A new subscriber to the events, those that came while nobody listened first.
    func subscribe() -> Mailbox<CLMonitor.Event>
    /// The app received `event`: it becomes its condition's last event.
    func consumed(_ event: CLMonitor.Event)
}
