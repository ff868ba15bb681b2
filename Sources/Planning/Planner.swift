public import Associations
public import ExternalEvents

/// An event to plan for.
public enum PlannedEvent: Sendable {
    /// A link; `scheme` lower case, as the URI grammar read it.
    case link(String, scheme: String)
    /// A user activity; `publisher` is the app that published it (a saved activity's), nil when unknown.
    case activity(UserActivity, publishedBy: String?)
    /// The user acted on a notification `app` posted: its target picks among that app's scenes, as
    /// an activity's does (no other app gets it).
    case notificationResponse(app: String, targetContentIdentifier: String?)
    /// An app's shortcut (a desktop action or a dock menu item), delivered as a user activity whose
    /// type is the shortcut's type; the app is fixed: the entry whose shortcut it is.
    case shortcut(UserActivity, app: String)

    /// What the app is handed: the link, or the activity routing reads (a notification response's
    /// and a shortcut's are activities of their own types).
    public var routed: ExternalEvent {
        switch self {
        case .link(let uri, _): .url(uri)
        case .activity(let activity, _): .activity(activity)
        case .notificationResponse(_, let target):
            .activity(UserActivity(type: Planner.notificationResponseType, targetContentIdentifier: target))
        case .shortcut(let activity, _): .activity(activity)
        }
    }
}

/// Why no plan could be made yet.
public enum PlanningError: Error, Sendable {
    /// A rule naming openers is reached, or the link's owner may have opened it: plan again with the opener known.
    case needsOpener
    /// The desktop could not be read for this link.
    case catalog(CatalogFailure)
}

/// The one place that decides where an event goes; `Open` carries its plans out, `Explain` shows them.
public enum Planner {
    /// Where `event` goes now, given what was already refused.
    /// - Parameters:
    ///   - opener: the app that opened it; `.pending` while it is being found.
    ///   - callerShowsPages: the caller is the browser: a web link goes to no browser (it shows the page).
    /// - Throws: `needsOpener` when the decision depends on an opener still `.pending`; `catalog`
    ///   when the desktop cannot be read.
    ///   - picked: what the user picked in the chooser a plan of this event asked for.
    public static func plan(
        _ event: PlannedEvent, opener: OpenerFact, _ snapshot: Snapshot, refused: Refusals = Refusals(),
        callerShowsPages: Bool = false, picked: NamedDestination? = nil
    ) throws(PlanningError) -> Plan {
        var planning = Planning(event: event, snapshot: snapshot, refused: refused)
        planning.callerShowsPages = callerShowsPages
        planning.opener = opener
        planning.picked = picked
        switch event {
        case .link(_, let scheme) where scheme == snapshot.offerScheme:
            planning.steps.append(Step(.offer, rule: .none, facts: [.handoffOffer(scheme: scheme)]))
        case .link(let uri, let scheme) where scheme == "file": planning.document(uri)
        case .link(let uri, let scheme) where scheme == "https" || scheme == "http":
            try planning.webLink(uri, scheme: scheme, opener: opener)
        case .link(let uri, let scheme): try planning.schemeLink(uri, scheme: scheme, opener: opener)
        case .activity(let activity, let publisher): try planning.activity(activity, publishedBy: publisher)
        case .notificationResponse(let app, _): planning.ownEvent(of: app, because: .poster(app: app))
        case .shortcut(let activity, let app): planning.ownEvent(of: app, because: .shortcut(app: app, type: activity.type))
        }
        return planning.finished
    }

    /// The app id a user rule names to mean "ask me" (`"appIDs": ["ask", …]`).
    public static let askRule = "ask"

    /// A web link's host, lower case, as choices are kept by it ("" when it has none).
    static func host(of uri: String) -> String { (try? WebLink(uri))?.host ?? "" }

    /// What a notification response is routed as: an activity of this type (routing reads only its target).
    public static let notificationResponseType = "io.waypost.notification-response"

    /// Which app continues an activity: the publisher, as long as its entry lists the type; else the one
    /// app that lists it; else the one the user chose among those. Never an order of ids or of
    /// directories: with several apps and no choice, none gets it.
    /// - Parameters:
    ///   - candidates: the participating entries that list `type`.
    ///   - chosen: read only when it decides (so a choice just made holds); a choice of an app that
    ///     does not list the type is no choice.
    public static func continuer<App>(
        ofActivityType type: String, publishedBy publisher: String?, candidates: [App], id: (App) -> String,
        chosen: () -> String?
    ) -> Result<App, Nowhere> {
        if let publisher, let app = candidates.first(where: { id($0) == publisher }) { return .success(app) }
        if candidates.count == 1 { return .success(candidates[0]) }
        guard !candidates.isEmpty else { return .failure(.noHandler("no installed app lists it in X-Waypost-Activity-Types")) }
        if let chosen = chosen(), let app = candidates.first(where: { id($0) == chosen }) { return .success(app) }
        return .failure(.appNotChosen(activityType: type, candidates: candidates.map(id).sorted(), publisher: publisher))
    }
}

/// A plan being made: the steps so far, and why the last candidate was passed over.
struct Planning {
    let event: PlannedEvent
    let snapshot: Snapshot
    let refused: Refusals
    var steps: [Step] = []
    var ownership: OwnershipDecision?
    /// Why the event goes nowhere, if no step is found.
    var nowhere: Nowhere?
    var lastFacts: [Fact] = []
    var callerShowsPages = false
    var opener: OpenerFact = .known(nil)
    var picked: NamedDestination?

    init(event: PlannedEvent, snapshot: Snapshot, refused: Refusals) {
        (self.event, self.snapshot, self.refused) = (event, snapshot, refused)
    }

    var finished: Plan {
        var steps = steps
        if steps.isEmpty {
            let why = nowhere ?? .noHandler("no application takes it")
            steps.append(Step(.nothing(why), rule: .none, facts: lastFacts.appending(.nowhere(why))))
        }
        return Plan(steps: steps, ownership: ownership)
    }

    /// The steps that bring the event to `app`: its routed scene, its launch, or (not taking part) the
    /// entry itself; none when it refused or has no scene for it.
    mutating func reach(_ app: InstalledApp, facts: [Fact]) {
        lastFacts = facts
        if refused.apps.contains(app.id) {
            lastFacts.append(.refused(app: app.id))
            return
        }
        guard app.participates else {
            steps.append(Step(.entry(app), rule: .fallback, facts: facts.appending(.doesNotTakePart(app: app.id))))
            return
        }
        guard var router = snapshot.running.readyRouter(of: app.id) else {
            steps.append(Step(.launch(app: app.id), rule: .none, facts: facts.appending(.notRunning(app: app.id))))
            return
        }
        // Only after a refusal: removing a scene copies the router's index.
        for scene in refused.scenes[app.id] ?? [] { try? router.removeScene(scene) }
        let decision = router.route(event.routed)
        let rule = Rule(decision.rule)
        switch decision.action {
        case .deliver(let scene):
            steps.append(Step(.openScene(app: app.id, scene: scene), rule: rule, facts: facts.appending(.routed(decision))))
        case .create(let declaration):
            steps.append(Step(.newScene(app: app.id, declaration: declaration), rule: rule, facts: facts.appending(.routed(decision))))
        case .unhandled:
            lastFacts.append(.noScene(app: app.id))
            nowhere = .noScene(app: app.id, decision)
        }
    }

    /// A `file://` URI: the app that opens its type.
    mutating func document(_ uri: String) {
        guard let type = snapshot.installed.contentType(ofFile: uri) else {
            nowhere = .noHandler("the file's type cannot be told from its name")
            return
        }
        guard let app = snapshot.installed.documentHandler(forType: type) else {
            nowhere = .noHandler("no installed application opens \(type) files")
            return
        }
        reach(app, facts: [.documentHandler(app: app.id)])
    }

    /// A web link: its owner when both sides agree (or a user rule names an entry), then the browser,
    /// which gets every link no app takes: the user clicked a web link and must see the page.
    mutating func webLink(_ uri: String, scheme: String, opener: OpenerFact) throws(PlanningError) {
        let decided: OwnershipDecision
        switch opener {
        case .pending:
            guard let known = snapshot.ownership.decide(url: uri, opener: .pending) else { throw .needsOpener }
            decided = known
        case .known(let id): decided = snapshot.ownership.decide(url: uri, opener: id)
        }
        ownership = decided
        var browserFacts: [Fact] = [.ownership(decided)]
        if case .app(let id, let because) = decided {
            if case .pending = opener { throw .needsOpener }
            let owners = ([id] + because.others).filter { !(because.isAssociation && snapshot.choices.linksOff.contains($0)) }
            if owners.isEmpty {
                browserFacts.append(.linksOff(app: id))
            } else if id == Planner.askRule {
                try choose(
                    among: try askCandidates(because.match.apps, scheme: scheme), scope: .site(Planner.host(of: uri)),
                    because: .userRule(because.source.description), facts: [.ownership(decided)], subject: uri)
                return
            } else if case .known(id) = opener {
                browserFacts.append(.selfLoop(app: id))
            } else if owners.count > 1, !callerShowsPages {
                var candidates = owners.map { NamedDestination(app: $0) }
                if let browser = try? snapshot.installed.browser(forScheme: scheme) { candidates.append(NamedDestination(app: browser.id)) }
                try choose(among: candidates, scope: .site(Planner.host(of: uri)), because: .owners, facts: [.ownership(decided)], subject: uri)
                return
            } else if let named = NamedDestination(owners[0]) {
                reach(named, facts: [.ownership(decided)])
                browserFacts = steps.isEmpty ? lastFacts : [.ownership(decided)]
            } else {
                browserFacts.append(.notInstalled(app: id))
            }
        }
        guard !callerShowsPages else {
            if steps.isEmpty { nowhere = .shownByCaller(decided) }
            return
        }
        guard let browser = try read({ () throws(CatalogFailure) in try snapshot.installed.browser(forScheme: scheme) }) else {
            if steps.isEmpty {
                nowhere = .noHandler(
                    "no browser is installed for x-scheme-handler/\(scheme) (Waypost never hands a link to itself)")
            }
            return
        }
        if let choice = try rememberedBrowser(for: uri, scheme: scheme), !refused.apps.contains(choice.destination.app) {
            return reach(choice.destination, facts: browserFacts.appending(.remembered(choice)))
        }
        guard !refused.apps.contains(browser.id) else {
            lastFacts = browserFacts.appending(.refused(app: browser.id))
            return
        }
        steps.append(Step(.browser(browser, .usual), rule: .browser, facts: browserFacts.appending(.browser(app: browser.id))))
    }

    /// What the desktop says, or `catalog` when it cannot be read.
    func read<T>(_ body: () throws(CatalogFailure) -> T) throws(PlanningError) -> T {
        do { return try body() } catch { throw .catalog(error) }
    }

    /// A custom-scheme link: the entry a user rule names, then the scheme's preferred participating
    /// handler, or (none) its non-participating one.
    mutating func schemeLink(_ uri: String, scheme: String, opener: OpenerFact) throws(PlanningError) {
        var handlerFacts: [Fact] = []
        // Without a rule for the scheme the link is not even split (about 6k instructions a link).
        let ownership = snapshot.ownership
        let ruling = ownership.hasRules(forScheme: scheme) ? ownership.decide(schemeLink: uri, opener: opener) : .noRule
        switch ruling {
        case .needsOpener: throw .needsOpener
        case .noRule: break
        case .handlers(let reason): handlerFacts = [.leftToHandlers(reason)]
        case .app(let id, let because) where id == Planner.askRule:
            let candidates = because.match.apps.filter { $0 != Planner.askRule }.compactMap(NamedDestination.init)
            return try choose(
                among: candidates, scope: .scheme(scheme), because: .userRule(because.source.description),
                facts: [.userRule(app: id, because)], subject: uri)
        case .app(let id, let because):
            if let named = NamedDestination(id), snapshot.installed.entry(id: named.app) != nil {
                reach(named, facts: [.userRule(app: id, because)])
                handlerFacts = steps.isEmpty ? lastFacts : []
            } else {
                handlerFacts = [.userRule(app: id, because), .notInstalled(app: id)]
            }
        }
        let handlers = try read { () throws(CatalogFailure) in try snapshot.installed.handlers(forScheme: scheme) }
        if handlers.count > 1 {
            return try choose(
                among: handlers.map { NamedDestination(app: $0.id) }, scope: .scheme(scheme), because: .schemeHandlers,
                facts: handlerFacts, subject: uri)
        }
        if let app = handlers.first {
            return reach(app, facts: handlerFacts.appending(.preferredHandler(app: app.id, scheme: scheme, others: [])))
        }
        guard let fallback = try read({ () throws(CatalogFailure) in try snapshot.installed.fallbackHandler(forScheme: scheme) }) else {
            if steps.isEmpty { nowhere = .noHandler("no installed application declares x-scheme-handler/\(scheme)") }
            return
        }
        guard !refused.apps.contains(fallback.id) else {
            lastFacts = handlerFacts.appending(.refused(app: fallback.id))
            return
        }
        steps.append(Step(.entry(fallback), rule: .fallback, facts: handlerFacts.appending(.fallbackHandler(app: fallback.id, scheme: scheme))))
    }

    /// A user activity: the app that continues its type (`Planner.continuer`); with several and no
    /// choice, the user is asked.
    mutating func activity(_ activity: UserActivity, publishedBy publisher: String?) throws(PlanningError) {
        let type = activity.type
        let installed = snapshot.installed
        let candidates = installed.applications(forActivityType: type)
        // The user's remembered choice comes before a mimeapps.list default, when the publisher cannot.
        if candidates.count > 1, !candidates.contains(where: { $0.id == publisher }),
           let choice = snapshot.choices.choice(for: .activityType(type), opener: try choiceOpener(for: .activityType(type), asking: false)),
           candidates.contains(where: { $0.id == choice.destination.app })
        {
            return reach(choice.destination, facts: [.remembered(choice)])
        }
        switch Planner.continuer(
            ofActivityType: type, publishedBy: publisher, candidates: candidates, id: { $0.id },
            chosen: { installed.chosenApplicationID(forActivityType: type) })
        {
        case .success(let app): reach(app, facts: [.continuer(app: app.id, activityType: type)])
        case .failure(.appNotChosen(_, let ids, _)):
            try choose(
                among: ids.map { NamedDestination(app: $0) }, scope: .activityType(type), because: .continuers, facts: [],
                subject: activity.title.flatMap { $0.isEmpty ? nil : $0 } ?? type)
        case .failure(let why): nowhere = why
        }
    }

    /// An event only one app may get (the response to a notification it posted, its own shortcut):
    /// that app, by the rules among its scenes, never another; nowhere when it is not installed or
    /// does not take part (the event means nothing to an entry that does not).
    mutating func ownEvent(of appID: String, because fact: Fact) {
        guard let app = snapshot.installed.entry(id: appID) else {
            nowhere = .noHandler("\(appID) is not an installed entry that can take it")
            return
        }
        guard app.participates else {
            nowhere = .noHandler("\(appID) does not take part in Waypost: \(fact), but it has no scene to take it")
            return
        }
        reach(app, facts: [fact])
    }
}

extension [Fact] {
    /// These facts and one more, in one allocation (`+ [fact]` makes two: a plan is made for every link).
    func appending(_ fact: Fact) -> [Fact] {
        var facts: [Fact] = []
        facts.reserveCapacity(count + 1)
        facts.append(contentsOf: self)
        facts.append(fact)
        return facts
    }
}
