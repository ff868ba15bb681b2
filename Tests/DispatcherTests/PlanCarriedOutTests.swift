import Associations
import DBus
import ExternalEvents
import Foundation
import Planning
import TestSupport
import Testing
import WaypostContract

/// The plan computed once, from values that mirror the session, against what the daemon says and
/// does: `Explain` lists its steps (each made with the refusals before it known), and `Open`
/// carries out the one after the refusals (`openAsPlanned`).
@Suite("dispatcher: Explain reports the plan, Open carries it out", .serialized)
struct PlanCarriedOutTests {
    /// The session's desktop as the planner reads it: one participating handler of `contacts`.
    struct OneHandler: InstalledApps {
        let app = InstalledApp(id: RoutingTests.contacts, participates: true)
        func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] { scheme == "contacts" ? [app] : [] }
        func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func contentType(ofFile uri: String) -> String? { nil }
        func documentHandler(forType contentType: String) -> InstalledApp? { nil }
        func entry(id: String) -> InstalledApp? { id == app.id ? app : nil }
        func applications(forActivityType type: String) -> [InstalledApp] { [] }
        func chosenApplicationID(forActivityType type: String) -> String? { nil }
    }

    /// A desktop with a browser only.
    struct OnlyABrowser: InstalledApps {
        let browser = InstalledApp(id: "org.example.Browser", participates: false)
        func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] { [] }
        func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { scheme == "https" ? browser : nil }
        func contentType(ofFile uri: String) -> String? { nil }
        func documentHandler(forType contentType: String) -> InstalledApp? { nil }
        func entry(id: String) -> InstalledApp? { id == browser.id ? browser : nil }
        func applications(forActivityType type: String) -> [InstalledApp] { [] }
        func chosenApplicationID(forActivityType type: String) -> String? { nil }
    }

    /// A desktop where two apps continue one activity type.
    struct TwoContinuers: InstalledApps {
        let apps = [InstalledApp(id: "org.example.Contacts", participates: true), InstalledApp(id: "org.example.Mail", participates: true)]
        func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] { [] }
        func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func contentType(ofFile uri: String) -> String? { nil }
        func documentHandler(forType contentType: String) -> InstalledApp? { nil }
        func entry(id: String) -> InstalledApp? { apps.first { $0.id == id } }
        func applications(forActivityType type: String) -> [InstalledApp] { apps }
        func chosenApplicationID(forActivityType type: String) -> String? { nil }
    }

    /// The user rule's app and the scheme's own handler.
    struct RuleAndHandler: InstalledApps {
        let ruled = InstalledApp(id: RoutingTests.contacts, participates: true)
        let handler = InstalledApp(id: "org.example.Notes", participates: true)
        func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] { scheme == "zoommtg" ? [handler] : [] }
        func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { nil }
        func contentType(ofFile uri: String) -> String? { nil }
        func documentHandler(forType contentType: String) -> InstalledApp? { nil }
        func entry(id: String) -> InstalledApp? { [ruled, handler].first { $0.id == id } }
        func applications(forActivityType type: String) -> [InstalledApp] { [] }
        func chosenApplicationID(forActivityType type: String) -> String? { nil }
    }

    struct Running: RunningApps {
        var routers: [String: SceneRouter]
        func readyRouter(of appID: String) -> SceneRouter? { routers[appID] }
    }

    static let nobodyOwns = LinkOwnership(userRules: [], associations: [:], claims: [:])

    func explain(_ uri: String, _ bus: Connection) async throws -> [String: String] {
        let reply = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Explain", uri)
        return DesktopSession.strings(try reply.decode([String: Variant].self))
    }

    /// Every destination the plan tries, as `Explain` lists them: the first step, then the first step
    /// of the plan made again with each destination before it refused (as the dispatcher does).
    static func walk(_ event: PlannedEvent, _ snapshot: Snapshot) throws -> [Destination] {
        var refused = Refusals()
        var steps: [Destination] = []
        while true {
            let step = try Planner.plan(event, opener: .known(nil), snapshot, refused: refused).first
            switch step.destination {
            case .nothing: return steps
            case .offer, .choose: return steps + [step.destination]
            case .openScene(let app, let scene): refused.scenes[app, default: []].insert(scene)
            case .newScene(let app, _), .launch(let app): refused.apps.insert(app)
            case .entry(let app), .browser(let app, _): refused.apps.insert(app.id)
            }
            steps.append(step.destination)
        }
    }

    /// A plan's destination as `Explain`'s steps carry it: action, app, and scene or declaration.
    static func listed(_ destination: Destination) -> [String: String] {
        switch destination {
        case .openScene(let app, let scene): ["action": "deliver", "app-id": app, "scene-id": scene]
        case .newScene(let app, let declaration): ["action": "create", "app-id": app, "declaration-id": declaration]
        case .launch(let app): ["action": "launch", "app-id": app]
        case .entry(let app), .browser(let app, _): ["action": "fallback", "app-id": app.id]
        case .offer: ["action": "offer", "app-id": "io.waypost.Handoff"]
        case .choose: ["action": "choose", "app-id": ""]
        case .nothing: [:]
        }
    }

    /// `Explain`'s steps without rule and reason, to compare with `listed`.
    static func places(_ steps: [[String: String]]) -> [[String: String]] {
        steps.map { $0.filter { ["action", "app-id", "scene-id", "declaration-id"].contains($0.key) } }
    }

    @Test("a link for an app that is not running: the plan launches it; Explain says so; Open launches it")
    func launch() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: []))
        let bus = try await session.connect()
        let uri = "contacts://show?id=erin"
        let snapshot = Snapshot(installed: OneHandler(), running: Running(routers: [:]), ownership: Self.nobodyOwns)
        let plan = try Planner.plan(.link(uri, scheme: "contacts"), opener: .known(nil), snapshot)
        #expect(plan.first.destination == .launch(app: app.id))
        let steps = try await session.plan(uri, with: bus)
        #expect(Self.places(steps) == [Self.listed(plan.first.destination)])
        #expect(steps[0]["rule"] == plan.first.rule.rawValue)
        let opened = try await session.openAsPlanned(uri, with: bus)
        #expect(opened["action"] == "launch")
        #expect(opened["app-id"] == app.id)
    }

    @Test("an open scene that refuses: Explain reports the plan's scene, Open falls through to the plan's next step")
    func fallThrough() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(
            behaviour: ["OpenURL": "refuse"], scenes: [("w1", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let bus = try await session.connect()
        let uri = "contacts://show?id=frank"
        let router = try SceneRouter(
            declarations: [.windowGroup("contacts")],
            openScenes: [OpenScene(id: "w1", declaration: "contacts", modifiers: [EventPreference(allowing: ["*"])])])
        let snapshot = Snapshot(installed: OneHandler(), running: Running(routers: [app.id: router]), ownership: Self.nobodyOwns)
        let event = PlannedEvent.link(uri, scheme: "contacts")
        let plan = try Planner.plan(event, opener: .known(nil), snapshot)
        #expect(plan.first.destination == .openScene(app: app.id, scene: "w1"))
        // Explain lists the fall-through too: the scene, then the new scene once the scene refused.
        let steps = try await session.plan(uri, with: bus)
        #expect(Self.places(steps) == (try Self.walk(event, snapshot)).map(Self.listed))
        #expect(steps[0]["rule"] == plan.first.rule.rawValue)

        var refused = Refusals()
        refused.scenes[app.id] = ["w1"]
        let next = try Planner.plan(event, opener: .known(nil), snapshot, refused: refused)
        #expect(next.first.destination == .newScene(app: app.id, declaration: "contacts"))
        #expect(steps.count > 1 && steps[1]["rule"] == next.first.rule.rawValue, "\(steps)")
        let opened = try await session.openAsPlanned(uri, with: bus, refusals: 1)
        #expect(opened["action"] == "create")
        #expect(opened["declaration-id"] == "contacts")
        #expect(session.received(app.id).last?["event"] as? String == "CreateScene")
    }

    @Test("a link whose app has no scene for it: Explain says it goes nowhere, naming the app, rule none; Open fails it NoHandler")
    func nowhere() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        // One scene that allows nothing, and a declaration whose empty matching set takes no event.
        let app = try await session.installApp(SampleApp(
            RoutingTests.contacts, schemes: ["contacts"], activityTypes: [],
            declarations: [("contacts", ["kind": "window-group", "matching": [String]()])],
            scenes: [("w1", "contacts", [([], [])])]))
        try await session.start(app)
        let bus = try await session.connect()
        let uri = "contacts://show?id=gina"
        let explained = try await explain(uri, bus)
        #expect(explained["action"] == "nowhere", "\(explained)")
        #expect(explained["app-id"] == app.id)
        #expect(explained["rule"] == "none")
        #expect(explained["reason"]?.isEmpty == false)
        let refusal = await DeliveryTests.failure { _ = try await session.open(uri, with: bus) }
        #expect(refusal?.name.rawValue == "io.waypost.Error.NoHandler", "\(String(describing: refusal))")
        #expect(session.received(app.id).allSatisfy { $0["event"] as? String != "OpenURL" })
    }

    @Test("a web link nobody owns: the plan's browser, with rule browser, in Explain and in Open")
    func browser() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        try await session.writeEntry(id: "org.example.Browser", """
            [Desktop Entry]
            Type=Application
            Name=Browser
            Exec=/bin/true %u
            MimeType=x-scheme-handler/https;

            """)
        let bus = try await session.connect()
        let uri = "https://elsewhere.example/page"
        let snapshot = Snapshot(installed: OnlyABrowser(), running: Running(routers: [:]), ownership: Self.nobodyOwns)
        let plan = try Planner.plan(.link(uri, scheme: "https"), opener: .known(nil), snapshot)
        #expect(plan.steps.map(\.destination) == [.browser(OnlyABrowser().browser)])
        let steps = try await session.plan(uri, with: bus)
        #expect(Self.places(steps) == (try Self.walk(.link(uri, scheme: "https"), snapshot)).map(Self.listed))
        for outcome in [steps[0], try await session.openAsPlanned(uri, with: bus)] {
            #expect(outcome["action"] == "fallback")
            #expect(outcome["app-id"] == "org.example.Browser")
            #expect(outcome["rule"] == plan.first.rule.rawValue)
        }
    }

    @Test("an activity two apps continue: the plan names nobody without a choice, its publisher's saved one (and its link, explained) goes to the publisher's scene")
    func activity() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let type = "org.example.contact.show"
        let contacts = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [type])
        _ = try await InProcessApp(session, id: "org.example.Mail", activityTypes: [type])
        try await contacts.openScene("s1")
        let published = Contract.ActivityDetails(title: "Ada", eligibleForSearch: true).variants
        try await contacts.publish("s1", type, published)
        let bus = try await session.connect()

        let router = try SceneRouter(
            declarations: [.windowGroup("main")],
            openScenes: [OpenScene(id: "s1", declaration: "main", modifiers: [EventPreference(allowing: ["*"])])])
        let snapshot = Snapshot(installed: TwoContinuers(), running: Running(routers: [contacts.id: router]), ownership: Self.nobodyOwns)
        let anyone = try Planner.plan(.activity(UserActivity(type: type), publishedBy: nil), opener: .known(nil), snapshot)
        guard case .choose = anyone.first.destination else { Issue.record("\(anyone.first)"); return }
        let unchosen = await ActivitiesOverTheBusTests.errorName {
            _ = try await session.dispatcher(bus, Contract.Dispatcher1.continueActivity, type, published, [String: Variant]())
        }
        #expect(unchosen == Contract.Failure.appNotChosen.errorName.rawValue)

        let saved = try #require(try await session.savedActivities(bus).first)
        let plan = try Planner.plan(.activity(UserActivity(type: type, title: "Ada"), publishedBy: contacts.id), opener: .known(nil), snapshot)
        #expect(plan.first.destination == .openScene(app: contacts.id, scene: "s1"))
        // Its link (a dock's recent item) is explained as the activity it continues.
        let explained = try Contract.RoutingOutcome(
            try await session.dispatcher(bus, Contract.Dispatcher1.explain, "x-waypost-activity:\(saved.id)").decode([String: Variant].self))
        #expect(explained.appID == contacts.id && explained.sceneID == "s1", "\(explained)")
        let outcome = try Contract.RoutingOutcome(
            try await session.dispatcher(bus, Contract.Dispatcher1.continueSavedActivity, saved.id, [String: Variant]())
                .decode([String: Variant].self))
        #expect(outcome.appID == contacts.id)
        #expect(outcome.sceneID == "s1")
        #expect(outcome.rule?.rawValue == plan.first.rule.rawValue)
    }

    @Test("a user rule's app that refuses in every way: the plan's next step, the scheme's own handler, gets the link")
    func userRuleFallsThrough() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let rules = session.root.appendingPathComponent("config/waypost/associations")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        let rule = #"{"scheme": "zoommtg", "applinks": {"details": [{"appIDs": ["org.example.Contacts"], "components": [{}]}]}}"#
        try rule.write(to: rules.appendingPathComponent("zoommtg.json"), atomically: true, encoding: .utf8)
        let contacts = try await session.installApp(RoutingTests.contactsApp(
            behaviour: ["OpenURL": "refuse", "CreateScene": "refuse"], scenes: [("w1", "contacts", [([], ["*"])])]))
        let notes = try await session.installApp(SampleApp(
            "org.example.Notes", schemes: ["zoommtg"], declarations: [("main", ["kind": "window-group"])]))
        try await session.start(contacts)
        let bus = try await session.connect()

        let uri = "zoommtg://join?id=1"
        let router = try SceneRouter(
            declarations: [.windowGroup("contacts")],
            openScenes: [OpenScene(id: "w1", declaration: "contacts", modifiers: [EventPreference(allowing: ["*"])])])
        let snapshot = Snapshot(
            installed: RuleAndHandler(), running: Running(routers: [contacts.id: router]),
            ownership: LinkOwnership(
                userRules: [try UserRule(named: "zoommtg", file: AssociationFile(json: Array(rule.utf8)), source: "zoommtg.json")],
                associations: [:], claims: [:]))
        let event = PlannedEvent.link(uri, scheme: "zoommtg")
        let plan = try Planner.plan(event, opener: .known(nil), snapshot)
        #expect(plan.steps.map(\.destination) == [.openScene(app: contacts.id, scene: "w1"), .launch(app: notes.id)])
        let explained = try await explain(uri, bus)
        #expect(explained["reason"]?.contains("by the user rule") == true, "\(explained)")
        // Explain lists every destination: the rule's scene, its new scene, then the scheme's own handler.
        let steps = try await session.plan(uri, with: bus)
        #expect(Self.places(steps) == (try Self.walk(event, snapshot)).map(Self.listed))
        #expect(steps.map { $0["action"] } == ["deliver", "create", "launch"], "\(steps)")
        #expect(steps[0]["rule"] == plan.first.rule.rawValue)

        var refused = Refusals()
        refused.scenes[contacts.id] = ["w1"]
        refused.apps = [contacts.id]
        let last = try Planner.plan(event, opener: .known(nil), snapshot, refused: refused)
        #expect(last.first.destination == .launch(app: notes.id))
        let opened = try await session.openAsPlanned(uri, with: bus, refusals: 2)
        #expect(opened["action"] == "launch")
        #expect(opened["app-id"] == notes.id)
    }
}
