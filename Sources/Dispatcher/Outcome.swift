public import Associations
public import ExternalEvents
public import Planning
public import WaypostContract

/// Where an event went, as `Open`, `ContinueActivity` and `Explain` report it.
public struct Outcome: Sendable, Equatable {
    public typealias Action = Contract.RoutingOutcome.Action

    public var action: Action
    public var appID: String
    public var sceneID: String?
    public var declarationID: String?
    /// The routing rule (`preferring`, `default`, …), or `fallback`.
    public var rule: String
    /// Why a web link went to its app (the user rule or association), said first; rendered with
    /// the reason, since describing the match costs more than routing the link.
    var ownership: OwnershipDecision?
    /// Said before the routing decision's own reason (which app, and why).
    var preface: String?
    /// The decision, whose reason is rendered only when someone reads it.
    var decision: Decision?
    /// The plan's step this outcome carried out, whose reason is rendered only when someone reads it.
    var step: Step?

    init(
        action: Action, appID: String, sceneID: String? = nil, declarationID: String? = nil, rule: String,
        preface: String? = nil, decision: Decision? = nil, step: Step? = nil
    ) {
        (self.action, self.appID, self.sceneID, self.declarationID, self.rule) = (action, appID, sceneID, declarationID, rule)
        (self.preface, self.decision, self.step) = (preface, decision, step)
    }

    /// What carrying out `step` brings; `launched` when the app was started for it.
    init(_ step: Step, launched: Bool) {
        let rule = step.rule.rawValue
        switch step.destination {
        case .openScene(let app, let scene):
            self.init(action: launched ? .launch : .deliver, appID: app, sceneID: scene, rule: rule, step: step)
        case .newScene(let app, let declaration):
            self.init(action: launched ? .launch : .create, appID: app, declarationID: declaration, rule: rule, step: step)
        case .launch(let app): self.init(action: .launch, appID: app, rule: rule, step: step)
        case .entry(let app), .browser(let app): self.init(action: .fallback, appID: app.id, rule: rule, step: step)
        case .nothing: self.init(action: .deliver, appID: step.destination.appID ?? "", rule: rule, step: step)
        }
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
        if let step { return [step.reason, preface].compactMap { $0 }.joined(separator: "; ") }
        let owner = ownership.map { preface == nil ? $0.description : "\($0);" }
        return [owner, preface, decision?.reason].compactMap { $0 }.joined(separator: " ")
    }

    /// Whether `Open` answers both alike (`contractOutcome(reason: false)`): they differ in why at most.
    func answersAlike(_ other: Outcome) -> Bool {
        (action, appID, sceneID, declarationID, rule) == (other.action, other.appID, other.sceneID, other.declarationID, other.rule)
    }
}
