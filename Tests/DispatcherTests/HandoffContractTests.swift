import DBus
import Testing
import WaypostContract

/// io.waypost.Handoff1 (docs/handoff.md): WaypostContract and the daemon against dbus/io.waypost.Handoff1.xml.
@Suite struct HandoffContractTests {
    @Test("WaypostContract's Handoff1 is dbus/io.waypost.Handoff1.xml, and the daemon exports it as the file says")
    func handoff() async throws {
        let contract = try ContractTests.contract("io.waypost.Handoff1.xml")
        #expect(contract.interfaces == [Contract.Handoff1.interface.rawValue])
        #expect(ContractTests.lines(Contract.Handoff1.all) == contract.membersWithKeys(of: "io.waypost.Handoff1"))
        #expect(contract.membersWithKeys(of: "io.waypost.Handoff1").count == 6)
        #expect(contract.nodePath == Contract.handoffObjectPath.rawValue)

        let session = try await PeerDesktop()
        defer { session.close() }
        let bus = try await session.connect()
        let exported = try await ContractTests.introspect(bus, "io.waypost.Dispatcher", "/io/waypost/Handoff")
        #expect(exported.members(of: "io.waypost.Handoff1") == contract.members(of: "io.waypost.Handoff1"))
    }
}
