public import ExternalEvents
import Planning
public import WaypostContract

/// Where an event went, as `Open`, `ContinueActivity` and `Explain` report it.
public struct Outcome: Sendable, Equatable {
    public typealias Action = Contract.RoutingOutcome.Action
    public typealias Rule = Contract.RoutingOutcome.Rule

    public var action: Action
    public var appID: String
    public var sceneID: String?
    public var declarationID: String?
    /// The plan's rule (`preferring`, `default`, …, `fallback`, `browser`).
    public var rule: Rule
    /// The plan's step this outcome carried out, whose reason is rendered only when someone reads it
    /// (describing a web link's match costs more than routing it).
    var step: Step?
    /// What was done, said after the step's reason (how a non-participating entry got the link).
    var preface: String?
    /// Whether the event carried a token its window could come to the front with; nil for an
    /// outcome not carried out (`Explain`).
    var carriedToken: Bool?

    init(
        action: Action, appID: String, sceneID: String? = nil, declarationID: String? = nil, rule: Rule,
        preface: String? = nil, step: Step? = nil
    ) {
        (self.action, self.appID, self.sceneID, self.declarationID) = (action, appID, sceneID, declarationID)
        self.rule = rule
        (self.preface, self.step) = (preface, step)
    }

    /// What carrying out `step` brings; `launched` when the app was started for it.
    init(_ step: Step, launched: Bool) {
        let rule = step.rule
        switch step.destination {
        case .openScene(let app, let scene):
            self.init(action: launched ? .launch : .deliver, appID: app, sceneID: scene, rule: rule, step: step)
        case .newScene(let app, let declaration):
            self.init(action: launched ? .launch : .create, appID: app, declarationID: declaration, rule: rule, step: step)
        case .launch(let app): self.init(action: .launch, appID: app, rule: rule, step: step)
        case .entry(let app), .browser(let app, _): self.init(action: .fallback, appID: app.id, rule: rule, step: step)
        case .choose: self.init(action: .choose, appID: "", rule: rule, step: step)
        case .offer: self.init(action: .offer, appID: Self.handoffAppID, rule: rule, step: step)
        case .nothing: self.init(action: .nowhere, appID: step.destination.appID ?? "", rule: rule, step: step)
        }
    }

    /// Who an offer's outcome names: the daemon's Handoff, which holds it.
    static let handoffAppID = "io.waypost.Handoff"

    /// Why, for people: built on demand, since `Open` does not send it.
    public var reason: String {
        [step?.reason, preface].compactMap { $0 }.joined(separator: "; ")
    }

    /// Whether `Open` answers both alike (`contractOutcome(reason: false)`): they differ in why at most.
    func answersAlike(_ other: Outcome) -> Bool {
        (action, appID, sceneID, declarationID, rule) == (other.action, other.appID, other.sceneID, other.declarationID, other.rule)
    }
}
