import Associations
import DBus
public import Desktop
import ExternalEvents
import Logging
import Handoff
import Planning
import WaypostContract

// Carrying out the planner's plans: the dispatcher decides no destination itself. It tries the
// plan's first step; when that destination refuses the event or vanishes, it asks for a plan again
// with the refusal known, so the event falls through to the next destination the rules allow.
// A destination that may have the event (a timeout, a reply of the wrong signature) ends the
// event there: at most once (docs/delivery.md).
extension Dispatcher {
    /// What a plan reads now: the desktop, the registered apps and who owns web links.
    var snapshot: Snapshot {
        Snapshot(
            installed: installedApps, running: registry, ownership: webLinks.ownership,
            offerScheme: offers == nil ? nil : HandoffPayload.scheme, choices: choices.book)
    }

    /// Waits, for a web link only, until the web-link table holds every claim and association file
    /// (`WebLinkTable.whole()`: built off this thread, once, when the daemon starts lazily); every
    /// other event reads only the user's rules, which the table holds from the start.
    func readWholeTableIfNeeded(for event: PlannedEvent) async {
        guard case .link(_, let scheme) = event, scheme == "http" || scheme == "https", !webLinks.isWhole else { return }
        await webLinks.whole()
    }

    /// The plan for `event` now, or nil when it depends on the opener, which the caller then
    /// awaits before asking again. (Not async itself: this runs for every event, and an `await`
    /// that does not suspend still costs a change of executor.)
    /// - Throws: `invalidURI` when the desktop cannot be read for it.
    func plan(
        _ event: PlannedEvent, opener: OpenerFact, refused: Refusals, callerShowsPages: Bool, picked: NamedDestination? = nil
    ) throws(DispatchError) -> Plan? {
        do {
            return try Planner.plan(event, opener: opener, snapshot, refused: refused, callerShowsPages: callerShowsPages, picked: picked)
        } catch {
            switch error {
            case .needsOpener: return nil
            case .catalog(let failure): throw .invalidURI(Self.subject(of: event), reason: failure.description)
            }
        }
    }

    /// The one way an event is carried: made (`make`: its saved activity read, its shortcut found
    /// in the entry), planned, carried out step by step until a destination takes it, and reported
    /// once, by `Routed` and the log, whether it was delivered or refused.
    /// - Parameters:
    ///   - reportedAs: what `Routed` and the log name it by: the link, "activity:TYPE", ….
    ///   - opener: who sent it, reported (awaited only while someone monitors).
    func carry(
        _ reportedAs: String, opener: PendingOpener? = nil, _ make: nonisolated(nonsending) () async throws(DispatchError) -> Event
    ) async throws(DispatchError) -> Outcome {
        try await reported(reportedAs, opener: opener) { () async throws(DispatchError) in
            try await self.deliver(try await make())
        }
    }

    /// Carries out `event`'s plan, unreported: for what is carried inside another report (a trusted
    /// device's Handoff offer, continued as it is received).
    func deliver(_ event: Event) async throws(DispatchError) -> Outcome {
        var outcome = try await carryOut(event)
        outcome.carriedToken = event.platformData.activationToken != nil || event.platformData.desktopStartupID != nil
        return outcome
    }

    /// Reports what `body` did with an event, by `Routed` and the log: `carry`'s report.
    private func reported(
        _ reportedAs: String, opener: PendingOpener? = nil, _ body: nonisolated(nonsending) () async throws(DispatchError) -> Outcome
    ) async throws(DispatchError) -> Outcome {
        let started = ContinuousClock.now
        do {
            let outcome = try await body()
            await reports.delivered(reportedAs, outcome, opener: opener, since: started)
            return outcome
        } catch {
            await reports.refused(reportedAs, error, opener: opener)
            throw error
        }
    }

    private func carryOut(_ pending: Event) async throws(DispatchError) -> Outcome {
        await returningAppsSettled()
        await readWholeTableIfNeeded(for: pending.planned)
        var destinations = Destinations(dispatcher: self, pending: pending)
        return try await CarryingOut.carryOut(
            pending.planned, label: pending.label, waitsForOpener: pending.opener != nil, picked: pending.picked, through: &destinations)
    }

    /// The world as carrying out one event's plan meets it (`PlanDestinations`): this dispatcher's
    /// registry, deliveries, launches and hand-overs, for `pending`.
    struct Destinations: PlanDestinations {
        let dispatcher: Dispatcher
        var pending: Event
        private var first = true

        init(dispatcher: Dispatcher, pending: Event) { (self.dispatcher, self.pending) = (dispatcher, pending) }

        nonisolated(nonsending) mutating func plan(
            refused: Refusals, opener: OpenerFact, picked: NamedDestination?
        ) async throws(DispatchError) -> Plan? {
            let plan = try await dispatcher.plan(
                pending.planned, opener: opener, refused: refused, callerShowsPages: pending.callerShowsPages, picked: picked)
            if first, let plan {
                first = false
                await dispatcher.warnIfOverBudget(plan)
            }
            return plan
        }

        nonisolated(nonsending) func opener() async -> OpenerFact { .known(await pending.opener?.value().appID) }

        nonisolated(nonsending) func dropExitedProcesses(of app: String) async -> Bool {
            await dispatcher.dropExitedProcesses(of: app)
        }

        nonisolated(nonsending) func launch(_ app: String) async throws(DispatchError) {
            let entry: ApplicationEntry
            do { entry = try dispatcher.directory.entry(id: app) } catch { throw .launchFailed(app: app, reason: error.description) }
            try await dispatcher.launchAndWait(entry, platformData: pending.platformData)
        }

        nonisolated(nonsending) func deliver(
            toScene scene: String, of app: String, _ outcome: Outcome
        ) async -> Result<Void, HandOverFailure> {
            await dispatcher.deliver(pending, toScene: scene, of: app, outcome)
        }

        nonisolated(nonsending) func createScene(
            _ declaration: String, of app: String
        ) async -> (Result<String, HandOverFailure>, attempts: [String]) {
            await dispatcher.createScene(declaration, of: app, for: pending)
        }

        nonisolated(nonsending) func handOver(to app: InstalledApp, window: BrowserWindow) async throws(DispatchError) -> String {
            try await dispatcher.handOverToNonParticipant(pending.label, app, window: window, pending.platformData)
        }

        nonisolated(nonsending) mutating func choose(_ request: ChoiceRequest) async throws(DispatchError) -> NamedDestination? {
            let event = pending
            let dispatcher = dispatcher
            let answer = await dispatcher.choosers.ask(
                request, platformData: pending.platformData, within: dispatcher.configuration.chooserAnswerWait
            ) { late in
                // The caller was answered "choose": the pick is carried as an event of its own.
                Task { await dispatcher.carryLate(late, of: request, for: event) }
            }
            guard let answer else { return nil }
            let pick = try dispatcher.settle(answer, of: request, for: pending.label)
            if let token = pick.token { pending.platformData = LaunchPlatformData(activationToken: token, desktopStartupID: token) }
            return pick.destination
        }

        nonisolated(nonsending) func takeOffer() async throws(DispatchError) -> Outcome {
            guard let offers = await dispatcher.offers, case .link(let uri, _) = pending.planned else {
                throw Dispatcher.error(.noHandler("Handoff is not running"), for: pending.planned)
            }
            return try await offers.take(
                uri, platformData: pending.platformData, caller: await dispatcher.openers.holder(opener: pending.opener, sender: pending.sender),
                sender: pending.sender)
        }

        func couldNotTake(_ app: String, _ error: DispatchError) {
            dispatcher.logger.info("\(app) could not take \(pending.label) (\(error))")
        }
    }

    /// Logged once per source over its budget: its links go to the browser.
    func warnIfOverBudget(_ plan: Plan) {
        if case .browser(.overBudget(let source, _))? = plan.ownership, webLinks.isFirstOverBudget(source) {
            logger.warning("\(source) costs more to match than a decision may: its links go to the browser (\(plan.ownership!))")
        }
    }

    /// Ends the registrations of `app`'s processes that exited without leaving the bus.
    /// - Returns: whether any ended.
    func dropExitedProcesses(of app: String) -> Bool {
        let before = registry.processes.count
        endRegistrationsOfExitedProcesses(of: app)
        return registry.processes.count != before
    }

    /// Where `open` would send `uri` now, delivering nothing: every destination of the same plan, in
    /// the order `open` tries them, each one after all before it refused (as `carryOut` plans again
    /// with each refusal known), for `opener` (nil: an opener no rule names). Never empty.
    /// A saved activity's link is explained as the activity it continues.
    /// - Throws: `invalidURI`, or the refusal `open` would answer when the plan goes nowhere at once.
    public func explain(_ uri: String, opener: Opener? = nil) async throws(DispatchError) -> [Outcome] {
        if let saved = SavedActivityLink.id(in: uri) {
            return try explain(try await savedActivity(saved, platformData: LaunchPlatformData(), opener: nil).planned, opener: opener)
        }
        let scheme = try URIGrammar.scheme(of: uri)
        await readWholeTableIfNeeded(for: .link(uri, scheme: scheme))
        return try explain(.link(uri, scheme: scheme), opener: opener)
    }

    /// Where `continueActivity` would send `activity` now (by an opener, so no publisher is known),
    /// delivering nothing: every destination of its plan, as `explain(_:opener:)` lists a link's.
    /// - Throws: `invalidArgument` for a malformed type, or the refusal `continueActivity` would answer.
    func explainActivity(_ activity: UserActivity) throws(DispatchError) -> [Outcome] {
        try Registry.check(id: activity.type, what: "activity type")
        return try explain(.activity(activity, publishedBy: nil), opener: nil)
    }

    /// Every destination of `event`'s plan, as `explain(_:opener:)` lists a link's.
    func explain(_ event: PlannedEvent, opener: Opener?) throws(DispatchError) -> [Outcome] {
        let snapshot = self.snapshot
        var refused = Refusals()
        var steps: [Outcome] = []
        // Each step leaves out a scene or an app when it refuses, so the walk ends; the cap bounds it anyway.
        while steps.count < Self.explainedStepsLimit {
            let plan: Plan
            do { plan = try Planner.plan(event, opener: .known(opener?.appID), snapshot, refused: refused) } catch {
                // A known opener never leaves the plan waiting for one.
                throw .invalidURI(Self.subject(of: event), reason: "\(error)")
            }
            let step = plan.first
            switch step.destination {
            case .nothing(.noScene) where steps.isEmpty:
                // The app the link is for, which has no scene for it: planned to go nowhere.
                return [Outcome(step, launched: false)]
            case .offer, .choose:
                // Held, or asked: what follows is the user's to say.
                return steps + [Outcome(step, launched: false)]
            case .nothing(let nowhere):
                if steps.isEmpty { throw Self.error(nowhere, for: event) }
                return steps
            case .openScene(let app, let scene): refused.scenes[app, default: []].insert(scene)
            case .newScene(let app, _), .launch(let app): refused.apps.insert(app)
            case .entry(let app), .browser(let app, _): refused.apps.insert(app.id)
            }
            steps.append(Outcome(step, launched: false))
        }
        return steps
    }

    /// Why `event` goes nowhere at once, by its first plan (nothing tried, no walk of the rest);
    /// nil when it has a destination.
    /// - Throws: `invalidURI` when the desktop cannot be read for it.
    func nowhere(_ event: PlannedEvent) throws(DispatchError) -> Nowhere? {
        let plan: Plan
        do { plan = try Planner.plan(event, opener: .known(nil), snapshot) } catch {
            throw .invalidURI(Self.subject(of: event), reason: "\(error)")
        }
        if case .nothing(let why) = plan.first.destination { return why }
        return nil
    }

    /// The most steps `explain` lists: more than any desktop's fall-through needs to be read.
    static let explainedStepsLimit = 64

    /// The error a plan that goes nowhere is refused with.
    static func error(_ nowhere: Nowhere, for event: PlannedEvent) -> DispatchError {
        switch nowhere {
        case .noScene(let app, let decision): .noHandler(label(of: event), reason: "\(app) has no scene for it: \(decision.reason)")
        case .noHandler(let reason): .noHandler(subject(of: event), reason: reason)
        case .shownByCaller(let ownership): .noHandler(subject(of: event), reason: "\(ownership); the browser that asked shows it")
        case .appNotChosen(let type, let candidates, let publisher):
            .appNotChosen(activityType: type, candidates: candidates, publisher: publisher)
        }
    }

    /// The event as errors name it (`Event.label`).
    static func label(of event: PlannedEvent) -> String {
        switch event {
        case .link(let uri, _): uri
        case .activity(let activity, _): "activity \(activity.type)"
        case .notificationResponse(let app, _): "a notification of \(app)"
        case .shortcut(let activity, let app): "shortcut \(activity.type) of \(app)"
        }
    }

    /// What a refusal names: the URI, or the activity type.
    static func subject(of event: PlannedEvent) -> String {
        switch event {
        case .link(let uri, _): uri
        case .activity(let activity, _): activity.type
        case .notificationResponse(let app, _): "a notification of \(app)"
        case .shortcut(let activity, _): activity.type
        }
    }
}

extension Destination {
    /// The participating app a step hands the event to, or starts.
    var participatingApp: String? {
        switch self {
        case .openScene(let app, _), .newScene(let app, _), .launch(let app): app
        case .entry, .browser, .offer, .choose, .nothing: nil
        }
    }
}

/// What holds a link the plan takes as a Handoff offer (`Destination.offer`): the daemon's Handoff
/// service, attached once it started, so that routing knows no more of Handoff than this.
protocol OfferTaking: Sendable {
    /// Holds `uri` as an offer `caller` (as the budgets name it) made; the outcome says so.
    func take(_ uri: String, platformData: LaunchPlatformData, caller: String, sender: BusName?) async throws(DispatchError) -> Outcome
}

extension Dispatcher {
    /// Holds `waypost-handoff:` links as offers from now on.
    func attach(offers: any OfferTaking) { self.offers = offers }
}
