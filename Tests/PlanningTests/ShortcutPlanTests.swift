import Associations
import ExternalEvents
import Planning
import Testing

/// Shortcuts planned: only the app whose shortcut it is, by its scenes' rules.
@Suite("where a shortcut goes, planned")
struct ShortcutPlanTests {
    func snapshot(_ desk: Desk, _ running: Running = Running()) throws -> Snapshot {
        Snapshot(installed: desk, running: running, ownership: try ownership())
    }

    @Test("a shortcut goes to its app's scene that prefers its target, then the one that allows it, then a new scene")
    func routedByTheRules() throws {
        var desk = Desk()
        desk.install(PlannerTests.contacts)
        desk.install(PlannerTests.notes)
        desk.activityApps["org.example.contact.show"] = [PlannerTests.notes]
        let running = Running(routers: [PlannerTests.contacts.id: try PlannerTests.contactsRouter()])
        let shortcut = UserActivity(type: "org.example.contact.show", targetContentIdentifier: "judy")
        let event = PlannedEvent.shortcut(shortcut, app: PlannerTests.contacts.id)
        let plan = try Planner.plan(event, opener: .known(nil), snapshot(desk, running))
        // Notes lists the type, but a shortcut of Contacts' is Contacts' alone.
        #expect(plan.first.destination == .openScene(app: PlannerTests.contacts.id, scene: "judy"))
        #expect(plan.first.rule == .preferring)
        #expect(plan.first.reason.contains("shortcut org.example.contact.show is org.example.Contacts's own"))
        var refused = Refusals()
        refused.scenes[PlannerTests.contacts.id] = ["judy"]
        let after = try Planner.plan(event, opener: .known(nil), snapshot(desk, running), refused: refused)
        #expect(after.first.destination == .openScene(app: PlannerTests.contacts.id, scene: "ivan"))
        refused.scenes[PlannerTests.contacts.id] = ["judy", "ivan"]
        let fresh = try Planner.plan(event, opener: .known(nil), snapshot(desk, running), refused: refused)
        #expect(fresh.first.destination == .newScene(app: PlannerTests.contacts.id, declaration: "contacts"))
        refused.apps = [PlannerTests.contacts.id]
        let nowhere = try Planner.plan(event, opener: .known(nil), snapshot(desk, running), refused: refused)
        guard case .nothing = nowhere.first.destination else { Issue.record("\(nowhere.first)"); return }
    }

    @Test("a shortcut of an app not running launches it; of an app not installed or not taking part, goes nowhere")
    func launchedOrNowhere() throws {
        var desk = Desk()
        desk.install(PlannerTests.contacts)
        desk.install(PlannerTests.legacy)
        let shortcut = UserActivity(type: "org.example.compose")
        let launch = try Planner.plan(.shortcut(shortcut, app: PlannerTests.contacts.id), opener: .known(nil), snapshot(desk))
        #expect(launch.first.destination == .launch(app: PlannerTests.contacts.id))
        let legacy = try Planner.plan(.shortcut(shortcut, app: PlannerTests.legacy.id), opener: .known(nil), snapshot(desk))
        #expect(legacy.first.destination == .nothing(.noHandler(
            "org.example.Legacy does not take part in Waypost: shortcut org.example.compose is org.example.Legacy's own, but it has no scene to take it")))
        let missing = try Planner.plan(.shortcut(shortcut, app: "org.example.Gone"), opener: .known(nil), snapshot(desk))
        #expect(missing.first.destination == .nothing(.noHandler("org.example.Gone is not an installed entry that can take it")))
    }
}
