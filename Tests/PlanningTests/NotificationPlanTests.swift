import Associations
import ExternalEvents
import Planning
import Testing

/// A notification response, planned over values: only the app that posted it, by its target.
@Suite("where a notification response goes, planned")
struct NotificationPlanTests {
    func snapshot(_ desk: Desk, _ running: Running = Running()) throws -> Snapshot {
        Snapshot(installed: desk, running: running, ownership: try ownership())
    }

    @Test("the poster's scene that prefers the target; without a target, the most recent one that allows anything; never another app's")
    func byTarget() throws {
        var desk = Desk()
        desk.install(PlannerTests.contacts, schemes: ["contacts"])
        desk.install(PlannerTests.notes, schemes: ["contacts"])
        let notesRouter = try SceneRouter(
            declarations: [.windowGroup("notes")],
            openScenes: [OpenScene(id: "n1", declaration: "notes", modifiers: [EventPreference(preferring: ["*"])])])
        let running = Running(routers: [PlannerTests.contacts.id: try PlannerTests.contactsRouter(), PlannerTests.notes.id: notesRouter])
        let targeted = try Planner.plan(
            .notificationResponse(app: PlannerTests.contacts.id, targetContentIdentifier: "judy"), opener: .known(nil), snapshot(desk, running))
        #expect(targeted.first.destination == .openScene(app: PlannerTests.contacts.id, scene: "judy"))
        #expect(targeted.first.rule == .preferring)
        #expect(targeted.first.reason.contains("org.example.Contacts posted the notification"))
        let untargeted = try Planner.plan(
            .notificationResponse(app: PlannerTests.contacts.id, targetContentIdentifier: nil), opener: .known(nil), snapshot(desk, running))
        #expect(untargeted.first.destination == .openScene(app: PlannerTests.contacts.id, scene: "judy"))
        #expect(untargeted.first.rule == .allowing)
    }

    @Test("a poster with no ready process is launched; one no longer installed, or no longer taking part, gets nothing")
    func launchOrNothing() throws {
        var desk = Desk()
        desk.install(PlannerTests.contacts, schemes: ["contacts"])
        desk.install(PlannerTests.legacy, schemes: ["legacy"])
        let launch = try Planner.plan(
            .notificationResponse(app: PlannerTests.contacts.id, targetContentIdentifier: "judy"), opener: .known(nil), snapshot(desk))
        #expect(launch.first.destination == .launch(app: PlannerTests.contacts.id))
        for app in ["org.example.Gone", PlannerTests.legacy.id] {
            let none = try Planner.plan(.notificationResponse(app: app, targetContentIdentifier: nil), opener: .known(nil), snapshot(desk))
            guard case .nothing(.noHandler(let why)) = none.first.destination else {
                Issue.record("\(app): \(none.first.destination)")
                continue
            }
            #expect(why.contains(app))
        }
    }
}
