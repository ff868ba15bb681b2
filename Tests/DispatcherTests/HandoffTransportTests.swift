import DBus
@testable import Dispatcher
import Testing

/// The devices of several transports as one list, and ids in one spelling (HandoffTransports.swift).
@Suite struct HandoffTransportTests {
    struct Listed: HandoffTransport {
        var kind: HandoffTransportKind
        var listed: Result<[PairedDevice], HandoffFailure>
        func devices(reachable: Bool) async throws(HandoffFailure) -> [PairedDevice] { try listed.get() }
        func share(_ url: String, to device: PairedDevice) async throws(DispatchError) {}
        func announcedName() async -> String? { nil }
    }

    static func device(_ id: String, _ name: String, on transport: HandoffTransportKind) -> PairedDevice {
        PairedDevice(id: id, name: name, type: "desktop", transport: transport)
    }

    @Test("a device both transports know is listed once, on the first (kdeconnectd), its ids spelled either way")
    func eachDeviceOnce() async throws {
        let kde = Listed(kind: .kdeconnectd, listed: .success([
            Self.device("eba28cbb_5c4c_4655", "Alpha", on: .kdeconnectd), Self.device("_e6bc_6a20_", "Beta", on: .kdeconnectd),
        ]))
        let gnome = Listed(kind: .gsconnect, listed: .success([
            Self.device("eba28cbb-5c4c-4655", "Alpha", on: .gsconnect), Self.device("7f3c-11", "Phone", on: .gsconnect),
        ]))
        let devices = try await HandoffService.devices(reachable: true, of: [kde, gnome])
        #expect(devices.map(\.name) == ["Alpha", "Beta", "Phone"])
        #expect(devices.map(\.transport) == [.kdeconnectd, .kdeconnectd, .gsconnect])
        #expect(devices.map(\.canonicalID) == ["eba28cbb-5c4c-4655", "-e6bc-6a20-", "7f3c-11"])
    }

    @Test("a transport that stops answering is left out, unless it was the only one")
    func oneAnswering() async throws {
        let gone = Listed(kind: .kdeconnectd, listed: .failure(.transportAbsent(.kdeconnectd, "gone")))
        let gnome = Listed(kind: .gsconnect, listed: .success([Self.device("7f3c-11", "Phone", on: .gsconnect)]))
        #expect(try await HandoffService.devices(reachable: true, of: [gone, gnome]).map(\.name) == ["Phone"])
        await #expect(throws: HandoffFailure.noTransport(["kdeconnectd does not answer on the session bus: gone"])) {
            try await HandoffService.devices(reachable: true, of: [gone])
        }
    }

    @Test("GSConnect's device path: each run of non-word characters as one \"_\"")
    func gsconnectPath() {
        #expect(GSConnectTransport.path(of: "eba28cbb-5c4c-4655")?.rawValue == "/org/gnome/Shell/Extensions/GSConnect/Device/eba28cbb_5c4c_4655")
        #expect(GSConnectTransport.path(of: "a--b.c_d")?.rawValue == "/org/gnome/Shell/Extensions/GSConnect/Device/a_b_c_d")
        #expect(DeviceID.kdeConnectPathElement("eba28cbb-5c4c") == "eba28cbb_5c4c")
    }
}
