import Associations
import ExternalEvents
import Planning
import Testing

/// The planner over values: the choices the dispatcher used to make on the bus, one by one.
@Suite("where an event goes, planned")
struct PlannerTests {
    static let contacts = InstalledApp(id: "org.example.Contacts", participates: true)
    static let notes = InstalledApp(id: "org.example.Notes", participates: true)
    static let legacy = InstalledApp(id: "org.example.Legacy", participates: false)
    static let browser = InstalledApp(id: "org.example.Browser", participates: false, isDBusActivatable: true)
    static let shop = InstalledApp(id: "org.example.Shop", participates: true)
    static let shopFile = #"{"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "/product/*"}]}]}}"#

    static func contactsRouter() throws -> SceneRouter {
        try SceneRouter(
            declarations: [.windowGroup("contacts")],
            openScenes: [
                OpenScene(id: "judy", declaration: "contacts", modifiers: [EventPreference(preferring: ["judy"], allowing: ["*"])]),
                OpenScene(id: "ivan", declaration: "contacts", modifiers: [EventPreference(allowing: ["*"])]),
            ])
    }

    func snapshot(_ desk: Desk, _ running: Running = Running(), _ owned: LinkOwnership? = nil) throws -> Snapshot {
        Snapshot(installed: desk, running: running, ownership: try owned ?? ownership())
    }

    @Test("a custom-scheme link goes to its handler's preferring scene; after refusals, the allowing one, then a new scene")
    func schemeLink() throws {
        var desk = Desk()
        desk.install(Self.contacts, schemes: ["contacts"])
        let running = Running(routers: [Self.contacts.id: try Self.contactsRouter()])
        let event = PlannedEvent.link("contacts://show?id=judy", scheme: "contacts")
        let plan = try Planner.plan(event, opener: .known(nil), snapshot(desk, running))
        #expect(plan.first.destination == .openScene(app: Self.contacts.id, scene: "judy"))
        #expect(plan.first.rule == .preferring)
        #expect(plan.first.reason.contains("preferred participating handler"))
        var refused = Refusals()
        refused.scenes[Self.contacts.id] = ["judy"]
        let after = try Planner.plan(event, opener: .known(nil), snapshot(desk, running), refused: refused)
        #expect(after.first.destination == .openScene(app: Self.contacts.id, scene: "ivan"))
        #expect(after.first.rule == .allowing)
        refused.scenes[Self.contacts.id] = ["judy", "ivan"]
        let fresh = try Planner.plan(event, opener: .known(nil), snapshot(desk, running), refused: refused)
        #expect(fresh.first.destination == .newScene(app: Self.contacts.id, declaration: "contacts"))
        #expect(fresh.first.rule == .default)
    }

    @Test("a handler with no ready process is launched first; a scheme nobody participating declares goes to its old handler")
    func launchAndFallback() throws {
        var desk = Desk()
        desk.install(Self.contacts, schemes: ["contacts"])
        desk.install(Self.legacy, schemes: ["legacy"])
        let launch = try Planner.plan(.link("contacts://x", scheme: "contacts"), opener: .known(nil), snapshot(desk))
        #expect(launch.first.destination == .launch(app: Self.contacts.id))
        #expect(launch.first.rule == .none)
        let fallback = try Planner.plan(.link("legacy://x", scheme: "legacy"), opener: .known(nil), snapshot(desk))
        #expect(fallback.first.destination == .entry(Self.legacy))
        #expect(fallback.first.rule == .fallback)
        var refused = Refusals()
        refused.apps = [Self.legacy.id]
        let gone = try Planner.plan(.link("legacy://x", scheme: "legacy"), opener: .known(nil), snapshot(desk), refused: refused)
        guard case .nothing = gone.first.destination else { Issue.record("\(gone.first)"); return }
        let unknown = try Planner.plan(.link("nobody://x", scheme: "nobody"), opener: .known(nil), snapshot(desk))
        #expect(unknown.first.destination == .nothing(.noHandler("no installed application declares x-scheme-handler/nobody")))
    }

    @Test("a link of the offer scheme is held as an offer while the dispatcher takes offers; else planned as any link")
    func handoffOffer() throws {
        var desk = Desk()
        desk.install(Self.legacy, schemes: ["waypost-handoff"])
        let event = PlannedEvent.link("waypost-handoff:v1/eyJ9", scheme: "waypost-handoff")
        var taking = try snapshot(desk)
        taking.offerScheme = "waypost-handoff"
        let offered = try Planner.plan(event, opener: .known(nil), taking)
        #expect(offered.steps.map(\.destination) == [.offer])
        #expect(offered.first.rule == .none)
        #expect(offered.first.reason.contains("another device handed over"))
        let plain = try Planner.plan(event, opener: .known(nil), snapshot(desk))
        #expect(plain.first.destination == .entry(Self.legacy))
    }

    @Test("a user rule sends a custom-scheme link to its entry first, the handlers next")
    func userRule() throws {
        var desk = Desk()
        desk.install(Self.contacts, schemes: ["zoommtg"])
        desk.install(Self.legacy)
        let rule = #"{"scheme": "zoommtg", "applinks": {"details": [{"appIDs": ["org.example.Legacy"], "components": [{}]}]}}"#
        let owned = try ownership(rules: [("zoommtg", rule)])
        let plan = try Planner.plan(.link("zoommtg://join", scheme: "zoommtg"), opener: .known(nil), snapshot(desk, Running(), owned))
        #expect(plan.steps.map(\.destination) == [.entry(Self.legacy), .launch(app: Self.contacts.id)])
        #expect(plan.first.reason.contains("org.example.Legacy, by the user rule"))
        var refused = Refusals()
        refused.apps = [Self.legacy.id]
        let after = try Planner.plan(.link("zoommtg://join", scheme: "zoommtg"), opener: .known(nil), snapshot(desk, Running(), owned), refused: refused)
        #expect(after.first.destination == .launch(app: Self.contacts.id))
    }

    @Test("a rule naming openers needs the opener; a known one decides")
    func opener() throws {
        var desk = Desk()
        desk.install(Self.contacts, schemes: ["zoommtg"])
        desk.install(Self.legacy)
        let rule = #"{"scheme": "zoommtg", "applinks": {"details": [{"appIDs": ["org.example.Legacy"], "components": [{"opener": ["org.example.Chat"]}]}]}}"#
        let owned = try ownership(rules: [("zoommtg", rule)])
        let event = PlannedEvent.link("zoommtg://join", scheme: "zoommtg")
        #expect(throws: PlanningError.self) { try Planner.plan(event, opener: .pending, snapshot(desk, Running(), owned)) }
        let fromChat = try Planner.plan(event, opener: .known("org.example.Chat"), snapshot(desk, Running(), owned))
        #expect(fromChat.first.destination == .entry(Self.legacy))
        let fromElsewhere = try Planner.plan(event, opener: .known("org.example.Mail"), snapshot(desk, Running(), owned))
        #expect(fromElsewhere.first.destination == .launch(app: Self.contacts.id))
    }

    @Test("an owned web link goes to its app, then the browser; unowned, self-opened or refused, to the browser")
    func webLinks() throws {
        var desk = Desk()
        desk.install(Self.shop)
        desk.browsers["https"] = Self.browser
        let owned = try ownership(associations: ["shop.example": Self.shopFile], claims: [Self.shop.id: ["shop.example"]])
        let running = Running(routers: [Self.shop.id: try SceneRouter(declarations: [.windowGroup("main")])])
        let link = PlannedEvent.link("https://shop.example/product/1", scheme: "https")
        let plan = try Planner.plan(link, opener: .known(nil), snapshot(desk, running, owned))
        #expect(plan.steps.map(\.destination) == [.newScene(app: Self.shop.id, declaration: "main"), .browser(Self.browser)])
        #expect(plan.first.rule == .default)
        #expect(plan.steps[1].rule == .browser)
        #expect(throws: PlanningError.self) { try Planner.plan(link, opener: .pending, snapshot(desk, running, owned)) }
        let selfOpened = try Planner.plan(link, opener: .known(Self.shop.id), snapshot(desk, running, owned))
        #expect(selfOpened.steps.map(\.destination) == [.browser(Self.browser)])
        #expect(selfOpened.first.reason.contains("opened it itself"))
        var refused = Refusals()
        refused.apps = [Self.shop.id]
        let after = try Planner.plan(link, opener: .known(nil), snapshot(desk, running, owned), refused: refused)
        #expect(after.steps.map(\.destination) == [.browser(Self.browser)])
        let unowned = try Planner.plan(.link("https://elsewhere.example/", scheme: "https"), opener: .pending, snapshot(desk, running, owned))
        #expect(unowned.steps.map(\.destination) == [.browser(Self.browser)])
        #expect(unowned.first.rule == .browser)
        desk.browsers = [:]
        let noBrowser = try Planner.plan(.link("https://elsewhere.example/", scheme: "https"), opener: .pending, snapshot(desk, running, owned))
        guard case .nothing(.noHandler) = noBrowser.first.destination else { Issue.record("\(noBrowser.first)"); return }
    }

    @Test("a web link the browser itself asks about goes to no browser: it shows the page")
    func callerShowsPages() throws {
        var desk = Desk()
        desk.install(Self.shop)
        desk.browsers["https"] = Self.browser
        let owned = try ownership(associations: ["shop.example": Self.shopFile], claims: [Self.shop.id: ["shop.example"]])
        let link = PlannedEvent.link("https://shop.example/product/1", scheme: "https")
        let plan = try Planner.plan(link, opener: .known(nil), snapshot(desk, Running(), owned), callerShowsPages: true)
        #expect(plan.steps.map(\.destination) == [.launch(app: Self.shop.id)])
        var refused = Refusals()
        refused.apps = [Self.shop.id]
        let after = try Planner.plan(link, opener: .known(nil), snapshot(desk, Running(), owned), refused: refused, callerShowsPages: true)
        guard case .nothing(.shownByCaller) = after.first.destination else { Issue.record("\(after.first)"); return }
    }

    @Test("a file goes to the app that opens its type; one that does not take part is started with it")
    func documents() throws {
        var desk = Desk()
        desk.fileTypes = [".txt": "text/plain", ".png": "image/png"]
        desk.documentHandlers = ["text/plain": Self.notes, "image/png": Self.legacy]
        let text = try Planner.plan(.link("file:///a.txt", scheme: "file"), opener: .known(nil), snapshot(desk))
        #expect(text.first.destination == .launch(app: Self.notes.id))
        let image = try Planner.plan(.link("file:///a.png", scheme: "file"), opener: .known(nil), snapshot(desk))
        #expect(image.first.destination == .entry(Self.legacy))
        let unknown = try Planner.plan(.link("file:///a.zzz", scheme: "file"), opener: .known(nil), snapshot(desk))
        #expect(unknown.first.destination == .nothing(.noHandler("the file's type cannot be told from its name")))
    }

    @Test("an activity goes to its publisher, the only app listing it, or the one chosen; never by order")
    func activities() throws {
        var desk = Desk()
        desk.activityApps["org.example.show"] = [Self.contacts, Self.notes]
        let activity = UserActivity(type: "org.example.show")
        let published = try Planner.plan(.activity(activity, publishedBy: Self.notes.id), opener: .known(nil), snapshot(desk))
        #expect(published.first.destination == .launch(app: Self.notes.id))
        let unchosen = try Planner.plan(.activity(activity, publishedBy: nil), opener: .known(nil), snapshot(desk))
        #expect(unchosen.first.destination == .choose(ChoiceRequest(
            candidates: [NamedDestination(app: Self.contacts.id), NamedDestination(app: Self.notes.id)],
            scope: .activityType("org.example.show"), opener: nil, subject: "org.example.show")))
        desk.chosen["org.example.show"] = Self.contacts.id
        let chosen = try Planner.plan(.activity(activity, publishedBy: "org.example.Gone"), opener: .known(nil), snapshot(desk))
        #expect(chosen.first.destination == .launch(app: Self.contacts.id))
    }

    @Test("another app listing the bank's activity type, first by id and running, never continues the bank's saved activity")
    func publisherOverFirstByID() throws {
        let bank = InstalledApp(id: "org.bank.App", participates: true)
        let evil = InstalledApp(id: "aaa.evil.App", participates: true)
        var desk = Desk()
        desk.activityApps["org.bank.transfer"] = [evil, bank]
        let window = { (scene: String) in
            try SceneRouter(declarations: [.windowGroup("main")], openScenes: [OpenScene(id: scene, declaration: "main", modifiers: [EventPreference(allowing: ["*"])])])
        }
        let running = Running(routers: [bank.id: try window("b1"), evil.id: try window("e1")])
        let transfer = PlannedEvent.activity(UserActivity(type: "org.bank.transfer"), publishedBy: bank.id)
        let plan = try Planner.plan(transfer, opener: .known(nil), snapshot(desk, running))
        #expect(plan.first.destination == .openScene(app: bank.id, scene: "b1"))
        #expect(!plan.steps.contains { "\($0.destination)".contains(evil.id) }, "\(plan.steps)")
        // The user's choice of another app does not take the publisher's own activity from it.
        desk.chosen["org.bank.transfer"] = evil.id
        #expect(try Planner.plan(transfer, opener: .known(nil), snapshot(desk, running)).first.destination == .openScene(app: bank.id, scene: "b1"))
    }
}
