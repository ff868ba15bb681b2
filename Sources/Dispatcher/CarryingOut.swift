import Associations
import Desktop
import Planning

/// Where carrying out a plan meets the world: planning again, and trying each kind of destination.
/// The dispatcher is one for each event (`Dispatcher.Destinations`); tests give a scripted one, so
/// that fall-through, at most once and launch once are checked as values (CarryingOutTests). On the
/// caller's executor (`nonisolated(nonsending)`): for the dispatcher, its connection's thread, with
/// no hop per step.
protocol PlanDestinations {
    /// The plan now, given what was refused; nil while it waits for the opener, who is then found.
    nonisolated(nonsending) mutating func plan(refused: Refusals, opener: OpenerFact, picked: NamedDestination?) async throws(DispatchError) -> Plan?
    /// Who opened the event, awaited (what a plan waiting for the opener asks).
    nonisolated(nonsending) func opener() async -> OpenerFact
    /// Ends the registrations of `app`'s processes that exited without leaving the bus.
    /// - Returns: whether any ended (the plan is then made again without them).
    nonisolated(nonsending) func dropExitedProcesses(of app: String) async -> Bool
    /// Starts `app` and waits until it is ready for events.
    nonisolated(nonsending) func launch(_ app: String) async throws(DispatchError)
    /// Hands the event to an open scene.
    nonisolated(nonsending) func deliver(toScene scene: String, of app: String, _ outcome: Outcome) async -> Result<Void, Dispatcher.HandOverFailure>
    /// Asks `app`'s processes that declare `declaration` for a new scene; its id, or why none made one.
    nonisolated(nonsending) func createScene(_ declaration: String, of app: String) async -> (Result<String, Dispatcher.HandOverFailure>, attempts: [String])
    /// Gives the event to an app that does not take part, or the browser; says what was done.
    nonisolated(nonsending) func handOver(to app: InstalledApp, window: BrowserWindow) async throws(DispatchError) -> String
    /// Asks the user to pick one of `request`'s candidates (remembering the pick when they say
    /// "always"); nil when the answer did not come within the caller's wait, and the pick is
    /// carried out on its own when it comes.
    /// - Throws: `choiceCancelled`; `notChosen` when no chooser could be shown.
    nonisolated(nonsending) mutating func choose(_ request: ChoiceRequest) async throws(DispatchError) -> NamedDestination?
    /// Holds the link as a Handoff offer.
    nonisolated(nonsending) func takeOffer() async throws(DispatchError) -> Outcome
    /// `app` could not take the event; the next destination is tried.
    func couldNotTake(_ app: String, _ error: DispatchError)
}

/// Carrying out a plan: its first destination tried and, when that one refuses or vanishes, the plan
/// made again with the refusal known, until a destination takes the event or none is left. It
/// decides no destination itself (the planner does), and gives the event to one destination at most
/// (docs/delivery.md): a destination that may have it ends the walk.
enum CarryingOut {
    /// - Parameters:
    ///   - label: the event as errors name it.
    ///   - waitsForOpener: the opener is being found, so a plan that depends on it waits.
    /// - Throws: the last destination's failure when none is left, the plan's refusal when it goes
    ///   nowhere at once; `timeout` and `mayHaveIt`'s errors at once.
    nonisolated(nonsending) static func carryOut(
        _ event: PlannedEvent, label: String, waitsForOpener: Bool, picked: NamedDestination? = nil,
        through destinations: inout some PlanDestinations
    ) async throws(DispatchError) -> Outcome {
        var picked = picked
        var opener: OpenerFact = waitsForOpener ? .pending : .known(nil)
        var refused = Refusals()
        var launched: Set<String> = []
        var attempts: [String] = []
        // The last destination's failure, thrown when no destination is left.
        var failure: DispatchError?
        while true {
            guard let plan = try await destinations.plan(refused: refused, opener: opener, picked: picked) else {
                opener = await destinations.opener()
                continue
            }
            let step = plan.first
            // A registered process that exited without leaving the bus is no destination: plan again
            // without it. (Each time round ends one at least, so this ends.)
            if let app = step.destination.participatingApp, await destinations.dropExitedProcesses(of: app) { continue }
            switch step.destination {
            case .nothing(let nowhere):
                throw failure ?? Dispatcher.error(nowhere, for: event)
            case .offer:
                return try await destinations.takeOffer()
            case .choose(let request):
                // Asked at most once: the pick is planned, and a refusal of it goes nowhere else.
                guard picked == nil, let pick = try await destinations.choose(request) else { return Outcome(step, launched: false) }
                picked = pick
            case .launch(let app):
                guard !launched.contains(app) else {
                    attempts.append("every process of \(app) went away")
                    failure = .deliveryFailed(label, attempts: attempts)
                    refused.apps.insert(app)
                    continue
                }
                do throws(DispatchError) {
                    try await destinations.launch(app)
                    launched.insert(app)
                } catch {
                    if case .timeout = error { throw error }
                    destinations.couldNotTake(app, error)
                    failure = error
                    refused.apps.insert(app)
                }
            case .openScene(let app, let scene):
                let outcome = Outcome(step, launched: launched.contains(app))
                switch await destinations.deliver(toScene: scene, of: app, outcome) {
                case .success: return outcome
                case .failure(.notTaken(let why)):
                    if let why { attempts.append(why) }
                    if !attempts.isEmpty { failure = .deliveryFailed(label, attempts: attempts) }
                    refused.scenes[app, default: []].insert(scene)
                case .failure(.mayHaveIt(let error)): throw error
                }
            case .newScene(let app, let declaration):
                let (created, tried) = await destinations.createScene(declaration, of: app)
                attempts += tried
                switch created {
                case .success(let scene):
                    var outcome = Outcome(step, launched: launched.contains(app))
                    outcome.sceneID = scene
                    return outcome
                case .failure(.notTaken):
                    failure = .deliveryFailed(label, attempts: attempts)
                    refused.apps.insert(app)
                case .failure(.mayHaveIt(let error)): throw error
                }
            case .entry(let app), .browser(let app, _):
                do throws(DispatchError) {
                    var outcome = Outcome(step, launched: false)
                    var window = BrowserWindow.usual
                    if case .browser(_, let named) = step.destination { window = named }
                    outcome.preface = try await destinations.handOver(to: app, window: window)
                    return outcome
                } catch {
                    if case .timeout = error { throw error }
                    destinations.couldNotTake(app.id, error)
                    failure = error
                    refused.apps.insert(app.id)
                }
            }
        }
    }
}
