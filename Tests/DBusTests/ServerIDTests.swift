import DBus
import Testing

/// `Connection.serverID` tells one bus from another: the GUID the bus also puts in its address.
@Suite struct ServerIDTests {
    @Test func aBusIsKnownByTheGUIDInItsAddressAndAnotherBusByAnother() async throws {
        let (first, second) = (try await PrivateBus(), try await PrivateBus())
        defer {
            first.stop()
            second.stop()
        }
        let (one, two, other) = (try await first.connect(), try await first.connect(), try await second.connect())
        defer { for connection in [one, two, other] { connection.close() } }
        let guid = try #require(first.address.split(separator: ",").first { $0.hasPrefix("guid=") }?.dropFirst(5))
        #expect(one.serverID == String(guid))
        #expect(two.serverID == one.serverID)
        #expect(other.serverID != nil && other.serverID != one.serverID)
    }
}
