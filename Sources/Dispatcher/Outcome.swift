public import Associations
public import ExternalEvents
public import WaypostContract

/// Where an event went, as `Open`, `ContinueActivity` and `Explain` report it.
public struct Outcome: Sendable, Equatable {
    public typealias Action = Contract.RoutingOutcome.Action

    public var action: Action
    public var appID: String
    public var sceneID: String?
    public var declarationID: String?
    /// The routing rule (`preferring`, `default`, …), or `fallback`: one of `Contract.RoutingOutcome.Rule`.
    public var rule: String
    /// Why a web link went to its app (the user rule or association), said first; rendered with
    /// the reason, since describing the match costs more than routing the link.
    var ownership: OwnershipDecision?
    /// Said before the routing decision's own reason (which app, and why).
    var preface: String?
    /// The decision, whose reason is rendered only when someone reads it.
    var decision: Decision?

    init(
        action: Action, appID: String, sceneID: String? = nil, declarationID: String? = nil, rule: String,
        preface: String? = nil, decision: Decision? = nil
    ) {
        (self.action, self.appID, self.sceneID, self.declarationID) = (action, appID, sceneID, declarationID)
        self.rule = Self.checked(rule)
        (self.preface, self.decision) = (preface, decision)
    }

    /// Where routing's decision sends the event; `launched` when the app was started for it.
    init(_ decision: Decision, app: String, launched: Bool) {
        switch decision.action {
        case .deliver(let scene):
            self.init(action: launched ? .launch : .deliver, appID: app, sceneID: scene, rule: decision.rule.rawValue, decision: decision)
        case .create(let declaration):
            self.init(action: launched ? .launch : .create, appID: app, declarationID: declaration, rule: decision.rule.rawValue, decision: decision)
        case .unhandled:
            self.init(action: .deliver, appID: app, rule: decision.rule.rawValue, decision: decision)
        }
    }

    /// Why, for people: built on demand, since `Open` does not send it.
    public var reason: String {
        let owner = ownership.map { preface == nil ? $0.description : "\($0);" }
        return [owner, preface, decision?.reason].compactMap { $0 }.joined(separator: " ")
    }

    /// Whether `Open` answers both alike (`contractOutcome(reason: false)`): they differ in why at most.
    func answersAlike(_ other: Outcome) -> Bool {
        (action, appID, sceneID, declarationID, rule) == (other.action, other.appID, other.sceneID, other.declarationID, other.rule)
    }
}
