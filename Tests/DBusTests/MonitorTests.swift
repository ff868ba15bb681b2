import DBus
import Testing
import TestSupport

private let portalInterface: InterfaceName = "org.waypost.Portal"

@Suite(.privateBus) struct MonitorTests {
    /// What the dispatcher watches the portal with: copies of calls between two other peers, only
    /// those the rules match, with their sender and arguments; and a monitor sends nothing.
    @Test func aMonitorSeesMatchingCallsBetweenOthersAndSendsNothing() async throws {
        let bus = try PrivateBus.suiteBus
        let (caller, service, watcher) = try await (bus.connect(), bus.connect(), bus.connect())
        try service.export("/portal", interfaces: [
            Interface(portalInterface, methods: [
                Method("OpenURI", arguments: [Argument("uri", "s")]) { call in try call.reply() },
                Method("OpenFile", arguments: [Argument("uri", "s")]) { call in try call.reply() },
            ])
        ])
        let copies = try await watcher.monitor(matching: [
            MatchRule(kind: .methodCall, interface: portalInterface, member: "OpenURI"),
        ])
        for (member, uri) in [("OpenFile", "file:///skipped"), ("OpenURI", "contacts://one"), ("OpenURI", "contacts://two")] {
            _ = try await caller.call(
                destination: service.uniqueName, path: "/portal", interface: portalInterface, member: MemberName(member), uri)
        }
        let (callerName, serviceName) = (caller.uniqueName, service.uniqueName)
        let seen = try await withDeadline("two copies of OpenURI") {
            var seen: [String] = []
            for try await copy in copies {
                #expect(copy.sender == callerName)
                #expect(copy.destination == serviceName)
                seen.append(try copy.decode(String.self))
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(seen == ["contacts://one", "contacts://two"])
        #expect(throws: BusError.self) {
            try watcher.emit(path: "/x", interface: portalInterface, member: "Spoken")
        }
    }
}
