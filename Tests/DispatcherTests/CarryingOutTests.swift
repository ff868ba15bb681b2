import Associations
@testable import Dispatcher
import ExternalEvents
import Planning
import Testing
import WaypostContract

/// Carrying out a plan as values: the real planner over a desktop of values, and destinations that
/// answer as the script says and record what was tried. No bus, no process: what is checked is the
/// walk itself — fall-through, at most once, launch once.
@Suite("carrying out a plan, as values")
struct CarryingOutTests {
    static let contacts = InstalledApp(id: "org.example.Contacts", participates: true)
    static let legacy = InstalledApp(id: "org.example.Legacy", participates: false)
    static let link = PlannedEvent.link("contacts://show?id=judy", scheme: "contacts")
    static let notes = InstalledApp(id: "org.example.Notes", participates: true)
    /// A link both Contacts and Notes declare.
    static let shared = PlannedEvent.link("people://judy", scheme: "people")

    /// Contacts handles `contacts:`; Legacy, which does not take part, `legacy:`; both Contacts and
    /// Notes `people:`.
    struct Desk: InstalledApps {
        func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] {
            switch scheme {
            case "contacts": [contacts]
            case "people": [contacts, notes]
            default: []
            }
        }
        func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { scheme == "legacy" ? legacy : nil }
        func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func contentType(ofFile uri: String) -> String? { nil }
        func documentHandler(forType contentType: String) -> InstalledApp? { nil }
        func entry(id: String) -> InstalledApp? { [contacts, legacy, notes].first { $0.id == id } }
        func applications(forActivityType type: String) -> [InstalledApp] { [] }
        func chosenApplicationID(forActivityType type: String) -> String? { nil }
    }

    struct Running: RunningApps {
        var router: SceneRouter?
        /// The one app whose scenes `router` is.
        var app = contacts.id
        func readyRouter(of appID: String) -> SceneRouter? { appID == app ? router : nil }
    }

    /// Judy's window prefers her, Ivan's allows anything; both of Contacts' one declaration.
    static func twoWindows() throws -> SceneRouter {
        try SceneRouter(
            declarations: [.windowGroup("contacts")],
            openScenes: [
                OpenScene(id: "judy", declaration: "contacts", modifiers: [EventPreference(preferring: ["judy"], allowing: [])]),
                OpenScene(id: "ivan", declaration: "contacts", modifiers: [EventPreference(allowing: ["*"])]),
            ])
    }

    /// Destinations that answer as scripted and record every attempt, in order.
    final class Script: PlanDestinations {
        var event = CarryingOutTests.link
        var running = Running()
        /// What each scene's delivery answers; a scene not listed takes the event.
        var scenes: [String: Dispatcher.HandOverFailure] = [:]
        /// What a new scene's creation answers; nil: it is made, as "new".
        var creation: Dispatcher.HandOverFailure?
        /// What launching answers; nil: the app starts, and then runs `afterLaunch`.
        var launchFailure: DispatchError?
        var afterLaunch: SceneRouter?
        var handOverFailure: DispatchError?
        /// What the user answers the chooser; nil: not within the caller's wait.
        var answer: ChooserAnswer? = .cancelled
        private(set) var tried: [String] = []

        func plan(refused: Refusals, opener: OpenerFact, picked: NamedDestination?) async throws(DispatchError) -> Plan? {
            let snapshot = Snapshot(installed: Desk(), running: running, ownership: LinkOwnership(userRules: [], associations: [:], claims: [:]))
            do { return try Planner.plan(event, opener: opener, snapshot, refused: refused, picked: picked) } catch {
                throw .invalidURI("\(event)", reason: "\(error)")
            }
        }
        func opener() async -> OpenerFact { .known(nil) }
        func dropExitedProcesses(of app: String) async -> Bool { false }
        func launch(_ app: String) async throws(DispatchError) {
            tried.append("launch \(app)")
            if let launchFailure { throw launchFailure }
            running.router = afterLaunch
        }
        func deliver(toScene scene: String, of app: String, _ outcome: Outcome) async -> Result<Void, Dispatcher.HandOverFailure> {
            tried.append("deliver \(scene)")
            return scenes[scene].map { .failure($0) } ?? .success(())
        }
        func createScene(_ declaration: String, of app: String) async -> (Result<String, Dispatcher.HandOverFailure>, attempts: [String]) {
            tried.append("create \(declaration)")
            guard let creation else { return (.success("new"), []) }
            return (.failure(creation), ["creating \"\(declaration)\" in \(app): refused"])
        }
        func handOver(to app: InstalledApp, window: BrowserWindow) async throws(DispatchError) -> String {
            tried.append("hand over \(app.id)")
            if let handOverFailure { throw handOverFailure }
            return "given to \(app.id)"
        }
        func choose(_ request: ChoiceRequest) async throws(DispatchError) -> NamedDestination? {
            tried.append("ask " + request.candidates.map(\.description).joined(separator: " "))
            switch answer {
            case .picked(let pick)?: return pick.destination
            case .cancelled?: throw .choiceCancelled("the link")
            case .unavailable(let why)?: throw .notChosen("the link", candidates: [], scope: "\(request.scope)", why: why)
            case nil: return nil
            }
        }
        func takeOffer() async throws(DispatchError) -> Outcome { throw .noHandler("offer", reason: "no offers here") }
        func couldNotTake(_ app: String, _ error: DispatchError) {}
    }

    static func carryOut(_ script: Script) async throws(DispatchError) -> Outcome {
        var destinations = script
        return try await CarryingOut.carryOut(script.event, label: "the link", waitsForOpener: false, through: &destinations)
    }

    @Test("a scene that refuses: the next the rules allow gets it, then a new scene; each tried once, in the plan's order")
    func fallThrough() async throws {
        let script = Script()
        script.running.router = try Self.twoWindows()
        script.scenes = ["judy": .notTaken("refused"), "ivan": .notTaken("refused")]
        let outcome = try await Self.carryOut(script)
        #expect(script.tried == ["deliver judy", "deliver ivan", "create contacts"])
        #expect(outcome.action == .create && outcome.sceneID == "new" && outcome.appID == Self.contacts.id)
    }

    @Test("a scene that may have the event (no answer in time): the opener hears it, and no other destination gets it")
    func atMostOnce() async throws {
        let script = Script()
        script.running.router = try Self.twoWindows()
        script.scenes = ["judy": .mayHaveIt(.timeout(app: Self.contacts.id, waitedFor: "the link", seconds: 5))]
        await #expect(throws: DispatchError.timeout(app: Self.contacts.id, waitedFor: "the link", seconds: 5)) { try await Self.carryOut(script) }
        #expect(script.tried == ["deliver judy"])
    }

    @Test("an app started for the event is started once: when it then has nothing ready, the event is refused, saying so")
    func launchOnce() async throws {
        let script = Script()
        // Started, it never becomes ready: the plan asks for its launch again, which is not done.
        await #expect(throws: DispatchError.deliveryFailed("the link", attempts: ["every process of \(Self.contacts.id) went away"])) {
            try await Self.carryOut(script)
        }
        #expect(script.tried == ["launch \(Self.contacts.id)"])
    }

    @Test("a launch that fails: the event is refused with the launch's failure, and given to no one else")
    func launchFails() async throws {
        let script = Script()
        script.launchFailure = .launchFailed(app: Self.contacts.id, reason: "no such program")
        await #expect(throws: DispatchError.launchFailed(app: Self.contacts.id, reason: "no such program")) { try await Self.carryOut(script) }
        // The old handler is the scheme's only while no participating app declares it.
        #expect(script.tried == ["launch \(Self.contacts.id)"])
    }

    @Test("a link no participating app declares goes to the scheme's old handler; when that one fails, the link is refused with its failure")
    func handOver() async throws {
        let script = Script()
        script.event = .link("legacy://x", scheme: "legacy")
        let outcome = try await Self.carryOut(script)
        #expect(outcome.action == .fallback && outcome.appID == Self.legacy.id && outcome.rule == .fallback)
        #expect(outcome.reason.hasSuffix("given to \(Self.legacy.id)"))
        script.handOverFailure = .launchFailed(app: Self.legacy.id, reason: "it exited at once")
        await #expect(throws: DispatchError.launchFailed(app: Self.legacy.id, reason: "it exited at once")) { try await Self.carryOut(script) }
        #expect(script.tried == ["hand over \(Self.legacy.id)", "hand over \(Self.legacy.id)"])
    }

    @Test("a started app's scene takes the event: the outcome says it was launched for it")
    func launchThenDeliver() async throws {
        let script = Script()
        script.afterLaunch = try Self.twoWindows()
        let outcome = try await Self.carryOut(script)
        #expect(script.tried == ["launch \(Self.contacts.id)", "deliver judy"])
        #expect(outcome.action == .launch && outcome.sceneID == "judy")
    }
}

@Suite("carrying out a choice, as values")
struct CarryingOutChoiceTests {
    typealias Script = CarryingOutTests.Script

    static func carryOut(_ script: Script) async throws(DispatchError) -> Outcome {
        var destinations = script
        return try await CarryingOut.carryOut(script.event, label: "the link", waitsForOpener: false, through: &destinations)
    }

    @Test("the user picks the second app: asked once, then that app is started for the link, once")
    func pick() async throws {
        let script = Script()
        script.event = CarryingOutTests.shared
        script.answer = .picked(ChooserPick(destination: NamedDestination(app: CarryingOutTests.notes.id)))
        script.running.app = CarryingOutTests.notes.id
        script.afterLaunch = try SceneRouter(declarations: [.windowGroup("notes")])
        let outcome = try await CarryingOutChoiceTests.carryOut(script)
        #expect(script.tried == ["ask org.example.Contacts org.example.Notes", "launch org.example.Notes", "create notes"])
        #expect(outcome.appID == CarryingOutTests.notes.id)
        #expect(outcome.reason.contains("you picked org.example.Notes"))
    }

    @Test("cancel: nothing is tried and the opener is told ChoiceCancelled")
    func cancel() async throws {
        let script = Script()
        script.event = CarryingOutTests.shared
        script.answer = .cancelled
        await #expect(throws: DispatchError.choiceCancelled("the link")) { try await CarryingOutChoiceTests.carryOut(script) }
        #expect(script.tried == ["ask org.example.Contacts org.example.Notes"])
    }

    @Test("no answer within the caller's wait: the caller is answered \"choose\" and nothing is tried yet")
    func late() async throws {
        let script = Script()
        script.event = CarryingOutTests.shared
        script.answer = nil
        let outcome = try await CarryingOutChoiceTests.carryOut(script)
        #expect(outcome.action == .choose)
        #expect(script.tried == ["ask org.example.Contacts org.example.Notes"])
    }

    @Test("the picked app fails to start: nobody else gets it and nobody is asked again")
    func pickedRefuses() async throws {
        let script = Script()
        script.event = CarryingOutTests.shared
        script.answer = .picked(ChooserPick(destination: NamedDestination(app: CarryingOutTests.notes.id)))
        script.launchFailure = .launchFailed(app: CarryingOutTests.notes.id, reason: "gone")
        await #expect(throws: DispatchError.self) { try await CarryingOutChoiceTests.carryOut(script) }
        #expect(script.tried == ["ask org.example.Contacts org.example.Notes", "launch org.example.Notes"])
    }
}
