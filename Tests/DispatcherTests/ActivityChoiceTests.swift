import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract

/// The user's choice of who continues an activity that several installed apps list, made with the
/// command and read by the daemon from mimeapps.list, on a private bus with real desktop entries.
/// Who continues which activity is the planner's choice, unit-tested over values (PlannerTests,
/// ContinuerTests); this checks what crosses the bus and the files.
@Suite("who continues an activity several apps list", .serialized)
struct ActivityChoiceTests {
    static let transfer = "org.bank.transfer"
    static let gnome = "org.gnome.Shell.SearchProvider2"

    static func transferActivity(_ n: Int) -> [String: Variant] {
        ActivitiesOverTheBusTests.activity(
            title: "Transfer to Ada \(n)", target: "transfer/\(n)", id: "t\(n)", userInfo: ["iban": .string("DE00 1234 \(n)")])
    }

    /// `gdbus call` at the daemon's search path, as the shells call; the exit status and output.
    static func shellCall(_ session: DesktopSession, _ path: ObjectPath, _ method: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await session.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", Contract.busName.rawValue, "--object-path", path.rawValue, "--method", method,
        ] + arguments)
    }

    @Test("when the publisher no longer lists the type and two apps do, nobody gets it (AppNotChosen) until the user chooses one with `waypost activities choose`")
    func userChooses() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let bank = try await InProcessApp(session, id: "org.bank.App", name: "Bank", activityTypes: [Self.transfer])
        let evil = try await InProcessApp(session, id: "aaa.evil.App", name: "Evil", activityTypes: [Self.transfer])
        let other = try await InProcessApp(session, id: "org.other.App", name: "Other", activityTypes: [Self.transfer])
        for (app, scene) in [(bank, "b1"), (evil, "e1"), (other, "o1")] { try await app.openScene(scene) }
        try await bank.publish("b1", Self.transfer, Self.transferActivity(2))
        let opener = try await session.connect()
        let saved = try #require(try await session.search(opener, ["transfer"]).first?.id)
        // While its entry lists the type, the saved activity carries its publisher to the planner:
        // the bank continues it, though aaa.evil.App comes first by id.
        let continued = try await session.dispatcher(opener, Contract.Dispatcher1.continueSavedActivity, saved, [String: Variant]())
            .decode([String: Variant].self)
        #expect(try Contract.RoutingOutcome(continued).appID == "org.bank.App")
        #expect(try await bank.next().scene == "b1")
        #expect(evil.delivered == 0 && other.delivered == 0)

        // The bank's entry goes; GIO tells the daemon through its monitors, which nothing announces.
        try FileManager.default.removeItem(at: session.root.appendingPathComponent("data/applications/org.bank.App.desktop"))
        try await session.run("/usr/bin/update-desktop-database", [session.root.appendingPathComponent("data/applications").path])
        try await waitUntil("the daemon no longer counts the bank among the apps that list the type", context: session.busLog) {
            await ActivitiesOverTheBusTests.errorName {
                _ = try await session.dispatcher(opener, Contract.Dispatcher1.continueSavedActivity, saved, [String: Variant]())
            } == "io.waypost.Error.AppNotChosen"
        }
        let bankReceived = bank.delivered
        // Not the first by id: nobody, and the shell hears why.
        let activated = try await Self.shellCall(session, Contract.SearchProvider2.objectPath, "\(Self.gnome).ActivateResult", [saved, "['transfer']", "8"])
        #expect(activated.status != 0)
        #expect(activated.output.contains("io.waypost.Error.AppNotChosen"), "\(activated.output)")
        #expect(activated.output.contains("waypost choices set activity-type:\(Self.transfer) APP"), "\(activated.output)")
        // An opener's activity of the type, with no publisher, alike; ExplainActivity says the user is asked.
        let asked = try await session.plan(activity: Self.transfer, Self.transferActivity(3), with: opener)
        #expect(asked.map { $0["action"] } == ["choose"], "\(asked)")
        #expect(await ActivitiesOverTheBusTests.errorName {
            _ = try await session.dispatcher(opener, Contract.Dispatcher1.continueActivity, Self.transfer, Self.transferActivity(3), [String: Variant]())
        } == "io.waypost.Error.AppNotChosen")
        #expect(evil.delivered == 0 && other.delivered == 0 && bank.delivered == bankReceived)

        // The user's choice, and what the command shows of it.
        #expect(try await session.waypost(["activities", "choose", Self.transfer]).stdout == "aaa.evil.App\norg.other.App\n")
        let refused = try await session.waypost(["activities", "choose", Self.transfer, "org.bank.App"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("these do: aaa.evil.App, org.other.App"), "\(refused.stderr)")
        let chose = try await session.waypost(["activities", "choose", Self.transfer, "org.other.App.desktop"])
        #expect(chose.status == 0, "\(chose.stderr)")
        let choices = try String(contentsOf: session.root.appendingPathComponent("config/waypost/choices"), encoding: .utf8)
        #expect(choices.contains("choice\tactivity-type:org.bank.transfer\t*\torg.other.App\t"), "\(choices)")
        #expect(try await session.waypost(["activities", "choose", Self.transfer]).stdout == "aaa.evil.App\norg.other.App (chosen)\n")

        var outcome: [String: Variant] = [:]
        try await waitUntil("the daemon continues the saved activity in the chosen app", context: session.busLog) {
            do {
                outcome = try await session.dispatcher(opener, Contract.Dispatcher1.continueSavedActivity, saved, [String: Variant]())
                    .decode([String: Variant].self)
                return true
            } catch let error as BusError where error.name.rawValue == "io.waypost.Error.AppNotChosen" { return false }
        }
        #expect(try Contract.RoutingOutcome(outcome).appID == "org.other.App")
        #expect(try await other.next().activity == Self.transferActivity(2))
        #expect(evil.delivered == 0)
        // The shell shows the result as the app it will continue in.
        let metas = try await Self.shellCall(session, Contract.SearchProvider2.objectPath, "\(Self.gnome).GetResultMetas", ["['\(saved)']"])
        #expect(metas.output.contains("'description': <'Other'>"), "\(metas.output)")
        #expect(metas.output.contains("'gicon': <'org.other.App'>"), "\(metas.output)")
    }
}
