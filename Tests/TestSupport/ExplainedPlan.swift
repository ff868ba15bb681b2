public import DBus
public import Testing
import WaypostContract

// What the plan checks of the dispatcher's tests and of the throwaway desktop share: the plan as
// `Explain` reports it, asked for once before the event is sent, and whether an outcome is what
// carrying out one of its steps answers. How a fixture sends the event and reads its apps' logs is
// its own.

/// The plan of an event as `Explain` lists it: its steps in the order `Open` tries them, each as its
/// string keys (action, app-id, scene-id or declaration-id, rule, reason).
public enum ExplainedPlan {
    /// The steps `Explain` (`ExplainOpenedBy` with an opener) reports for `uri`.
    /// - Throws: the call's error; `TestFailure` when the reply lists no steps.
    public static func steps(
        of uri: String, opener: String? = nil, with bus: Connection, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [[String: String]] {
        let reply = if let opener {
            try await bus.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.explainOpenedBy.name, uri, opener)
        } else {
            try await bus.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.explain.name, uri)
        }
        return try steps(reply, sourceLocation: sourceLocation)
    }

    /// As `steps(of:)`, for a user activity (`ExplainActivity`).
    public static func steps(
        ofActivity type: String, _ activity: [String: Variant], with bus: Connection,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [[String: String]] {
        let reply = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.explainActivity.name, type, activity)
        return try steps(reply, sourceLocation: sourceLocation)
    }

    /// The steps of an `Explain` reply; its first step is also the outcome's own keys, which this checks.
    static func steps(_ reply: Message, sourceLocation: SourceLocation) throws -> [[String: String]] {
        let outcome = try reply.decode([String: Variant].self)
        guard let listed = try outcome.value(Contract.RoutingOutcome.Keys.steps), !listed.isEmpty else {
            throw TestFailure("Explain listed no steps: \(outcome)")
        }
        let steps = listed.map(strings)
        let first = strings(outcome).filter { $0.key != Contract.RoutingOutcome.Keys.opener.name }
        #expect(first == steps[0], "the outcome's keys are the first step's", sourceLocation: sourceLocation)
        return steps
    }

    /// The string values of an outcome (the keys a step and `Routed` carry; numbers are left out).
    public static func strings(_ map: [String: Variant]) -> [String: String] {
        map.reduce(into: [:]) { result, entry in
            if case .string(let value) = entry.value { result[entry.key] = value }
        }
    }

    /// That `outcome` is what carrying out `step` answers: the same action and app; for a delivery
    /// the same scene, for a new scene the same declaration, and for either or an entry the same
    /// rule. A launch's scene and rule are chosen once the app declared its scenes, so for one only
    /// the action and the app must agree. `plan` is for the failure's message.
    public static func expectAnswered(
        _ outcome: [String: String], _ step: [String: String], plan: [[String: String]] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = "plan \(plan), the event went to \(outcome)"
        #expect(outcome["action"] == step["action"], "\(context)", sourceLocation: sourceLocation)
        #expect(outcome["app-id"] == step["app-id"], "\(context)", sourceLocation: sourceLocation)
        switch step["action"] {
        case "deliver":
            #expect(outcome["scene-id"] == step["scene-id"] && outcome["rule"] == step["rule"], "\(context)", sourceLocation: sourceLocation)
        case "create":
            #expect(outcome["declaration-id"] == step["declaration-id"] && outcome["rule"] == step["rule"], "\(context)",
                    sourceLocation: sourceLocation)
        case "launch":
            break
        default:
            // A non-participating entry or the browser.
            #expect(outcome["rule"] == step["rule"], "\(context)", sourceLocation: sourceLocation)
        }
    }
}
