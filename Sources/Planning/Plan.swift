public import Associations
public import ExternalEvents

/// Where an event goes: destinations in order, each tried when the one before could not take it.
/// The dispatcher tries the first and, after a refusal, asks for a plan again with the refusal
/// known (`Refusals`); `Explain` shows the same plan.
public struct Plan: Sendable {
    public var steps: [Step]
    /// Who owns a web link, when the event is one (for the dispatcher's log of rule sources over budget).
    public var ownership: OwnershipDecision?

    /// The first step: where the event goes now. A plan always has one (`nothing` last).
    public var first: Step { steps[0] }
}

/// One destination of a plan, by which rule, and why.
public struct Step: Sendable, Equatable {
    public var destination: Destination
    public var rule: Rule
    /// The facts behind it, rendered into `reason` only when read.
    public var facts: [Fact]

    public init(_ destination: Destination, rule: Rule, facts: [Fact]) {
        (self.destination, self.rule, self.facts) = (destination, rule, facts)
    }

    /// Why, for people.
    public var reason: String { facts.map(\.description).joined(separator: "; ") }
}

/// Where a step sends the event.
public enum Destination: Sendable, Equatable {
    /// An open scene of a participating app.
    case openScene(app: String, scene: String)
    /// A new scene of one of the app's declarations.
    case newScene(app: String, declaration: String)
    /// Start the participating app (no process of it is ready), then plan again over its scenes.
    case launch(app: String)
    /// A non-participating entry, given the link by `Open` when it runs as a D-Bus app, else started with it.
    case entry(InstalledApp)
    /// The user's browser (a web link nobody owns, or whose owner could not take it), or a browser a
    /// rule or choice names, in the window it names (a profile, a private window).
    case browser(InstalledApp, BrowserWindow = .usual)
    /// Ask the user: a chooser shows the candidates; the pick is planned again as the user's choice.
    indirect case choose(ChoiceRequest)
    /// The daemon itself, which holds the link as a Handoff offer from another device
    /// (`Snapshot.offerScheme`): shown to the user, continued when accepted.
    case offer
    // Boxed, as are the larger facts below: steps and facts are copied on every event's path, and
    // a why held inline (160 bytes) made a step 176 bytes for a 32-byte destination.
    /// Nowhere: the event is refused with this reason.
    indirect case nothing(Nowhere)

    /// The app the event would reach; nil for nothing.
    public var appID: String? {
        switch self {
        case .openScene(let app, _), .newScene(let app, _), .launch(let app): app
        case .entry(let app), .browser(let app, _): app.id
        case .offer, .choose: nil
        case .nothing(let why): if case .noScene(let app, _) = why { app } else { nil }
        }
    }
}

/// Why an event goes nowhere.
public enum Nowhere: Error, Sendable, Equatable {
    /// The app that gets it has no scene for it.
    case noScene(app: String, Decision)
    /// No installed application handles it.
    case noHandler(String)
    /// A web link no app takes, asked for by the browser, which shows the page itself.
    case shownByCaller(OwnershipDecision)
    /// Several apps continue the activity type and the user chose none of them.
    case appNotChosen(activityType: String, candidates: [String], publisher: String?)
}

/// What a chooser asks: which of these candidates gets the event, and what "always" would cover.
public struct ChoiceRequest: Sendable, Equatable {
    /// In the order shown: the first is the one the plan would otherwise prefer.
    public var candidates: [NamedDestination]
    /// What "always" remembers the pick for.
    public var scope: ChoiceScope
    /// The app that opened the event, when known: the pick may be remembered for it alone.
    public var opener: String?
    /// What is being opened, for the window: the link, or the activity's title or type.
    public var subject: String

    public init(candidates: [NamedDestination], scope: ChoiceScope, opener: String?, subject: String) {
        (self.candidates, self.scope, self.opener, self.subject) = (candidates, scope, opener, subject)
    }
}

/// The rule a step is taken by: routing's rules, or the dispatcher's own (`OutcomeRule`, which
/// the contract's outcome also is).
public typealias Rule = OutcomeRule

/// A fact behind a step, described only when someone reads the reason.
public enum Fact: Sendable, Equatable {
    /// Who owns the web link (or why nobody does).
    indirect case ownership(OwnershipDecision)
    /// A user rule gives the custom-scheme link to an entry.
    indirect case userRule(app: String, Ownership)
    /// A user rule leaves the link to the scheme's handlers.
    indirect case leftToHandlers(BrowserReason)
    /// The preferred participating handler of the scheme, and the others that declare it.
    case preferredHandler(app: String, scheme: String, others: [String])
    /// The scheme's non-participating handler.
    case fallbackHandler(app: String, scheme: String)
    /// The app that opens the file's type.
    case documentHandler(app: String)
    /// The app that continues the activity type.
    case continuer(app: String, activityType: String)
    /// The app that posted the notification the user acted on.
    case poster(app: String)
    /// A shortcut of this app's, which only it gets.
    case shortcut(app: String, type: String)
    /// The owner opened its own link: it goes to the browser.
    case selfLoop(app: String)
    /// An app named by a rule or an association is not installed (or would hand the link back).
    case notInstalled(app: String)
    /// An app the dispatcher tried could not take it.
    case refused(app: String)
    /// No scene of the app takes it.
    case noScene(app: String)
    case notRunning(app: String)
    case doesNotTakePart(app: String)
    indirect case routed(Decision)
    case browser(app: String)
    /// A link of the scheme the daemon takes as Handoff offers.
    case handoffOffer(scheme: String)
    /// The user's remembered choice decides.
    indirect case remembered(RememberedChoice)
    /// The user picked it just now, in the chooser.
    case picked(NamedDestination)
    /// Several candidates and no choice: the user is asked.
    indirect case ask(ChoiceScope, candidates: [String], because: AskReason)
    /// A choice names a destination that no longer takes the event: it is passed over.
    indirect case staleChoice(RememberedChoice)
    /// The app's web links are off (the user unset "open supported links").
    case linksOff(app: String)
    indirect case nowhere(Nowhere)
}

extension Fact: CustomStringConvertible {
    public var description: String {
        switch self {
        case .ownership(let ownership): ownership.description
        case .userRule(let app, let ownership): "\(app), by \(ownership)"
        case .leftToHandlers(let reason): "\(reason)"
        case .preferredHandler(let app, let scheme, let others):
            "\(app) is the preferred participating handler of \(scheme):"
                + (others.isEmpty ? "" : " (also declared by \(others.joined(separator: ", ")))")
        case .fallbackHandler(let app, let scheme):
            "no participating app declares x-scheme-handler/\(scheme); \(app), which does not take part in Waypost, gets it"
        case .documentHandler(let app): "\(app) opens this file type"
        case .continuer(let app, let type): "\(app) continues activities of type \(type)"
        case .poster(let app): "\(app) posted the notification"
        case .shortcut(let app, let type): "shortcut \(type) is \(app)'s own"
        case .selfLoop(let app): "\(app) opened it itself, so it goes to the browser (no loop back into the app)"
        case .notInstalled(let app): "\(app) is not an installed entry that can take it"
        case .refused(let app): "\(app) could not take it"
        case .noScene(let app): "no scene of \(app) takes it"
        case .notRunning(let app): "\(app) is not running: it is started and the event routed once it declares its scenes"
        case .doesNotTakePart(let app): "\(app) does not take part in Waypost: it is given the link as before Waypost"
        case .routed(let decision): decision.reason
        case .browser(let app): "the browser \(app) gets it"
        case .handoffOffer(let scheme):
            "a \(scheme): link is an activity another device handed over: Waypost offers it to the user, who may continue it"
        case .nowhere(let why): why.description
        case .remembered(let choice):
            "your choice for \(choice.scope.spoken)\(choice.opener.map { " opened from \($0)" } ?? ""), made \(choice.made): \(choice.destination.spoken)"
        case .picked(let destination): "you picked \(destination.spoken)"
        case .ask(let scope, let candidates, let reason):
            "\(reason) (\(candidates.joined(separator: ", "))) and no choice is remembered for \(scope.spoken): you are asked"
        case .staleChoice(let choice):
            "your choice for \(choice.scope.spoken) names \(choice.destination.spoken), which no longer takes it"
        case .linksOff(let app): "\(app)'s links are off (waypost links on \(app) turns them on)"
        }
    }
}

/// Why the user is asked.
public enum AskReason: Sendable, Equatable, CustomStringConvertible {
    /// Several participating apps declare the scheme.
    case schemeHandlers
    /// Several apps own the web link (the association names each, and each claims the domain).
    case owners
    /// Several apps continue the activity type.
    case continuers
    /// A user rule says to ask.
    case userRule(String)

    public var description: String {
        switch self {
        case .schemeHandlers: "several participating apps declare the scheme"
        case .owners: "several apps own the link"
        case .continuers: "several apps continue the activity type"
        case .userRule(let source): "the user rule \(source) says to ask"
        }
    }
}

extension Nowhere: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noScene(let app, let decision): "\(app) has no scene for it: \(decision.reason)"
        case .noHandler(let reason): reason
        case .shownByCaller: "the browser that asked shows it"
        case .appNotChosen(let type, let candidates, _):
            "several apps continue \(type) (\(candidates.joined(separator: ", "))) and none is chosen"
        }
    }
}
