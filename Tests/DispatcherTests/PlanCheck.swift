import DBus
import Foundation
import TestSupport
import Testing

// The one check every routing case goes through: the plan is asked for once, from `Explain`,
// before the event is sent; then `Open` must have done exactly one of its steps (the first, or
// after `refusals` destinations refused, the step that follows them), and the app that step names
// must have received the event there. Asking and comparing is `ExplainedPlan`'s (TestSupport); how
// this session sends the event and reads its apps' logs is here.
extension TestDesktop {
    /// The steps of the plan `Explain` (`ExplainOpenedBy` with an opener) reports for `uri`, each as
    /// strings; its first step is also the outcome's own keys, which this checks.
    func plan(_ uri: String, opener: String? = nil, with bus: Connection, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [[String: String]]
    {
        try await ExplainedPlan.steps(of: uri, opener: opener, with: bus, sourceLocation: sourceLocation)
    }

    /// As `plan(_:)`, for a user activity (`ExplainActivity`).
    func plan(activity type: String, _ activity: [String: Variant], with bus: Connection, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [[String: String]]
    {
        try await ExplainedPlan.steps(ofActivity: type, activity, with: bus, sourceLocation: sourceLocation)
    }

    /// Asks for the plan (`ExplainActivity`), continues the activity as an opener (`ContinueActivity`)
    /// and checks it as `openAsPlanned` does. `received` tells where the case's app got it (an
    /// in-process app); without it, the sample app's log is read.
    @discardableResult
    func continueAsPlanned(
        _ type: String, _ activity: [String: Variant], with bus: Connection, refusals: Int = 0,
        received: (() async throws -> [String: Any])? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: String] {
        let steps = try await plan(activity: type, activity, with: bus, sourceLocation: sourceLocation)
        try #require(steps.count > refusals, "the plan has no step after \(refusals) refusals: \(steps)", sourceLocation: sourceLocation)
        let reply = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "ContinueActivity", type, activity, [String: Variant](), timeout: .seconds(30))
        let outcome = DesktopSession.strings(try reply.decode([String: Variant].self))
        let record = if let received { try await received() } else {
            steps[refusals]["app-id"].flatMap { app in
                self.received(app).last { $0["type"] as? String == type || ($0["payload"] as? [String: Any])?["activity-type"] as? String == type }
            }
        }
        expectCarriedOut(steps[refusals], outcome, received: record, plan: steps, sourceLocation: sourceLocation)
        return outcome
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

    /// That `outcome` is what carrying out `step` answers, and the step's app logged `uri` there.
    func expectCarriedOut(
        _ step: [String: String], _ outcome: [String: String], uri: String, plan: [[String: String]] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let record = step["app-id"].flatMap { app in
            received(app).last { ($0["uri"] as? String ?? ($0["payload"] as? [String: Any])?["uri"] as? String) == uri }
        }
        expectCarriedOut(step, outcome, received: record, plan: plan, sourceLocation: sourceLocation)
    }

    /// That `outcome` is what carrying out `step` answers, and `received` (what the step's app
    /// recorded: "event", "scene", "declaration") is that destination's receipt.
    func expectCarriedOut(
        _ step: [String: String], _ outcome: [String: String], received: [String: Any]?, plan: [[String: String]] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        ExplainedPlan.expectAnswered(outcome, step, plan: plan, sourceLocation: sourceLocation)
        let receipt = "\(step["app-id"] ?? "nobody") recorded \(String(describing: received))"
        switch step["action"] {
        case "deliver":
            #expect(["OpenURL", "ContinueUserActivity"].contains(received?["event"] as? String) && received?["scene"] as? String == step["scene-id"],
                    "\(receipt)", sourceLocation: sourceLocation)
        case "create":
            #expect(received?["event"] as? String == "CreateScene" && received?["declaration"] as? String == step["declaration-id"]
                    && received?["scene"] as? String == outcome["scene-id"], "\(receipt)", sourceLocation: sourceLocation)
        case "launch":
            #expect(received != nil && (outcome["scene-id"] == nil || received?["scene"] as? String == outcome["scene-id"]),
                    "\(receipt)", sourceLocation: sourceLocation)
        default:
            // A non-participating entry or the browser: the case checks what it was started with.
            break
        }
    }
}
