import DBus
import Foundation
import TestSupport
import Testing

// The one check the universal-link and opener cases go through: the plan is asked for once, from
// `Explain` (`ExplainOpenedBy` with the opener), before the link is opened, by whichever opener the
// case uses; the daemon's `Routed` signal then says what `Open` did, which must be the plan's step
// after the `refusals` that refused: same app, scene or declaration, and rule; and that app must
// have received the link there. Asking and comparing is `ExplainedPlan`'s (TestSupport); how the
// desktop opens the link and reads its apps' logs is here.
extension ThrowawayDesktop {
    /// The steps of the plan the daemon reports for `uri`, each as strings; the first is also the
    /// outcome's own keys.
    func plan(_ uri: String, opener: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: String]] {
        let bus = try await Connection(address: address)
        defer { bus.close() }
        return try await ExplainedPlan.steps(of: uri, opener: opener, with: bus, sourceLocation: sourceLocation)
    }

    /// Asks for the plan of `uri` as `opener` opens it, runs `open`, and checks what `Open` did
    /// against the plan (see above). Returns the `Routed` outcome.
    @discardableResult
    func openAsPlanned(
        _ uri: String, opener: String? = nil, refusals: Int = 0, sourceLocation: SourceLocation = #_sourceLocation,
        by open: () async throws -> Void
    ) async throws -> [String: String] {
        let steps = try await plan(uri, opener: opener, sourceLocation: sourceLocation)
        try #require(steps.count > refusals, "no step after \(refusals) refusals: \(steps)", sourceLocation: sourceLocation)
        let step = steps[refusals]
        let bus = try await Connection(address: address)
        defer { bus.close() }
        let routed = try await bus.signals(matching: MatchRule(interface: "io.waypost.Dispatcher1", member: "Routed"))
        _ = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "MonitorRouted", ["full-uris": Variant.boolean(true)])
        try await open()
        let outcome = try await withDeadline("the daemon sends Routed for \(uri)", context: { self.busLog }) {
            for try await signal in routed {
                let (event, fields) = try signal.decode(String.self, [String: Variant].self)
                if event == uri { return ExplainedPlan.strings(fields) }
            }
            throw TestFailure("the Routed signals ended before one for \(uri)\n\(self.busLog)")
        }
        #expect(outcome["error"] == nil, "plan \(steps), Open did \(outcome)", sourceLocation: sourceLocation)
        ExplainedPlan.expectAnswered(outcome, step, plan: steps, sourceLocation: sourceLocation)
        guard let app = step["app-id"] else { return outcome }
        let received = self.received(app).last { ($0["uri"] as? String ?? ($0["payload"] as? [String: Any])?["uri"] as? String) == uri }
        switch step["action"] {
        case "deliver":
            #expect(received?["event"] as? String == "OpenURL" && received?["scene"] as? String == step["scene-id"],
                    "\(app) logged \(String(describing: received))", sourceLocation: sourceLocation)
        case "create":
            #expect(received?["event"] as? String == "CreateScene" && received?["declaration"] as? String == step["declaration-id"],
                    "\(app) logged \(String(describing: received))", sourceLocation: sourceLocation)
        case "launch":
            // Its scene and rule are chosen once the app declared its scenes.
            #expect(received != nil && (outcome["scene-id"] == nil || received?["scene"] as? String == outcome["scene-id"]),
                    "\(app) logged \(String(describing: received))", sourceLocation: sourceLocation)
        default:
            // An entry that does not take part (the browser among them), started with the link.
            try await waitUntil("\(app) was started with \(uri)", context: busLog) { plainLines(app).contains(uri) }
        }
        return outcome
    }
}
