import DBus
import TestSupport
import Testing
import WaypostContract

/// Who hears `CurrentActivityChanged`: it carries webpage URLs and user info, so only the
/// connections that asked for it with `MonitorCurrentActivity`, each alone, as `Routed` goes.
@Suite("who hears of the current activity", .serialized)
struct CurrentActivitySignalTests {
    @Test("a connection with a match rule for the dispatcher's signals, but no MonitorCurrentActivity, never receives an activity's URL and user info")
    func onlySubscribersHear() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let contacts = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [ActivitiesOverTheBusTests.show])
        let rule = MatchRule(path: Contract.objectPath, interface: Contract.Dispatcher1.interface)
        let subscriber = try await session.connect()
        var heard = try await subscriber.signals(matching: rule).makeAsyncIterator()
        _ = try await session.dispatcher(subscriber, Contract.Dispatcher1.monitorCurrentActivity)
        // The stranger listens to every signal of the interface, and asks for Routed only.
        let stranger = try await session.connect()
        var overheard = try await stranger.signals(matching: rule).makeAsyncIterator()
        _ = try await session.dispatcher(stranger, Contract.Dispatcher1.monitorRouted, Contract.MonitorOptions().variants)

        try await contacts.openScene("c1")
        let secret = ActivitiesOverTheBusTests.activity(
            title: "Statement", target: "account/1", search: false, userInfo: ["session": .string("s3cr3t")])
        try await contacts.publish("c1", ActivitiesOverTheBusTests.show, secret)
        let announced = try #require(try await heard.next())
        #expect(try Contract.CurrentActivity.decode(announced.decode([String: Variant].self))?.activity == secret)

        // Routed for an event the stranger sends after the announcement: the bus keeps one
        // sender's messages in order, so a broadcast announcement would reach the stranger first.
        #expect(await ActivitiesOverTheBusTests.errorName {
            _ = try await session.dispatcher(stranger, Contract.Dispatcher1.continueActivity, "org.example.unknown", [String: Variant](), [String: Variant]())
        } == "io.waypost.Error.NoHandler")
        let first = try #require(try await overheard.next())
        #expect(first.member == Contract.Dispatcher1.routed.name, "the stranger received \(first)")
    }
}
