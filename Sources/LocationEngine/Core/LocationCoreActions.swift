// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// What goes into a ``LocationCore`` from the receiver and what comes out of it: the events it is
/// given and the actions its shell performs.
extension LocationCore {
    /// Work the core decided on, for the shell to perform in order.
    package enum Action: Sendable {
        /// Give one update to each of the update subscriptions `to` (in ascending order):
        /// subscribers told the same thing at one input share one action, so that the update
        /// is made, carried and copied once for them all, not once for each.
        case deliver(to: [ID], LocationUpdate)
        /// Give the fix being received (the one ``receive(_:origin:received:)`` was given), whole,
        /// to the precise-fix subscription `ID`. The fix is not carried here: an action list holds
        /// one action per subscriber at every fix, each as large as the largest case, and a fix
        /// is five times an update's size.
        case deliverFix(ID)
        /// Give flags to the diagnostics subscription `ID`.
        case diagnose(ID, AuthorizationFlags)
        /// End the stream of subscription `ID` (its session ended, or the receiver did).
        case finish(ID)
        /// Show this question to the user; it replaces any question still showing.
        case ask(PromptRequest)
        /// Take back the question showing: it was answered elsewhere or nobody wants it now.
        case withdrawPrompt
        /// Store the app's decisions.
        case persist(ClientAuthorization)
        case log(String)
        /// The first subscription arrived: start receiving from the receiver.
        case startReceiver
        /// The last subscription left: release the receiver.
        case stopReceiver
        /// The authorization status or accuracy changed: tell the observers (delegates).
        case authorizationChanged
        /// Answer the precise-location request `ID`: granted (`nil`) or refused with an error.
        case completeAccuracyRequest(ID, AccuracyRequestRefusal?)
        /// Store the app's reduced-accuracy state: it changed with an output.
        case persistReduced(AccuracyReducer.State)
    }

    /// What the receiver says, as the service hands it on.
    package enum ReceiverEvent: Sendable {
        case fix(Fix)
        /// No position can be had now; the text says why.
        case unavailable(String)
        /// The receiver ended for good (a replayed log reached its end).
        case ended
    }
}

/// A diagnostics subscription: the session it reports on and the flags it last said.
struct DiagnosticSubscriber: Sendable {
    var session: LocationCore.ID
    var last: AuthorizationFlags?
}
