import DBus
import Foundation
import TestSupport
import Testing

// The one check every routing case goes through: the plan is asked for once, from `Explain`,
// before the event is sent; then `Open` must have done exactly one of its steps (the first, or
// after `refusals` destinations refused, the step that follows them), and the app that step names
// must have received the event there.
extension DesktopSession {
    /// The steps of the plan `Explain` (`ExplainOpenedBy` with an opener) reports for `uri`, each as
    /// strings; its first step is also the outcome's own keys, which this checks.
    func plan(_ uri: String, opener: String? = nil, with bus: Connection, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [[String: String]]
    {
        let reply = if let opener {
            try await bus.call(
                destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
                member: "ExplainOpenedBy", uri, opener)
        } else {
            try await bus.call(
                destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
                member: "Explain", uri)
        }
        let outcome = try reply.decode([String: Variant].self)
        guard let listed = try outcome["steps"]?.decode(as: [[String: Variant]].self) else {
            throw TestFailure("Explain listed no steps: \(outcome)")
        }
        let steps = listed.map(DesktopSession.strings)
        try #require(!steps.isEmpty, "Explain's plan is empty", sourceLocation: sourceLocation)
        let first = DesktopSession.strings(outcome).filter { $0.key != "opener" }
        #expect(first == steps[0], "the outcome's keys are the first step's", sourceLocation: sourceLocation)
        return steps
    }

    /// Asks for the plan, then opens `uri` and checks that `Open` carried it out: it answered the
    /// step after the first `refusals` steps (which refused), with the same app, scene or declaration,
    /// and rule; and that app logged the link there. A launch step's scene and rule are chosen once the
    /// app declared its scenes, so for one only the action and the app must agree, and the scene is
    /// the one the app logged. Returns `Open`'s outcome, for the case's own checks.
    @discardableResult
    func openAsPlanned(
        _ uri: String, with bus: Connection, refusals: Int = 0, platformData: [String: Variant] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: String] {
        let steps = try await plan(uri, with: bus, sourceLocation: sourceLocation)
        try #require(steps.count > refusals, "the plan has no step after \(refusals) refusals: \(steps)", sourceLocation: sourceLocation)
        let outcome = try await open(uri, with: bus, platformData: platformData)
        expectCarriedOut(steps[refusals], outcome, uri: uri, plan: steps, sourceLocation: sourceLocation)
        return outcome
    }

    /// That `outcome` is what carrying out `step` answers, and the step's app received `uri` there.
    func expectCarriedOut(
        _ step: [String: String], _ outcome: [String: String], uri: String, plan: [[String: String]] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = "plan \(plan), Open answered \(outcome)"
        #expect(outcome["action"] == step["action"], "\(context)", sourceLocation: sourceLocation)
        #expect(outcome["app-id"] == step["app-id"], "\(context)", sourceLocation: sourceLocation)
        guard let app = step["app-id"] else { return }
        let received = self.received(app).last { ($0["uri"] as? String ?? ($0["payload"] as? [String: Any])?["uri"] as? String) == uri }
        switch step["action"] {
        case "deliver":
            #expect(outcome["scene-id"] == step["scene-id"] && outcome["rule"] == step["rule"], "\(context)", sourceLocation: sourceLocation)
            #expect(received?["event"] as? String == "OpenURL" && received?["scene"] as? String == step["scene-id"],
                    "\(app) logged \(String(describing: received))", sourceLocation: sourceLocation)
        case "create":
            #expect(outcome["declaration-id"] == step["declaration-id"] && outcome["rule"] == step["rule"], "\(context)", sourceLocation: sourceLocation)
            #expect(received?["event"] as? String == "CreateScene" && received?["declaration"] as? String == step["declaration-id"]
                    && received?["scene"] as? String == outcome["scene-id"], "\(app) logged \(String(describing: received))",
                    sourceLocation: sourceLocation)
        case "launch":
            #expect(received != nil && (outcome["scene-id"] == nil || received?["scene"] as? String == outcome["scene-id"]),
                    "\(app) logged \(String(describing: received))", sourceLocation: sourceLocation)
        default:
            // A non-participating entry or the browser: the case checks what it was started with.
            #expect(outcome["rule"] == step["rule"], "\(context)", sourceLocation: sourceLocation)
        }
    }
}
