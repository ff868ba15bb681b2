import Desktop
import Foundation
import Testing
import TestSupport

/// A `DBusActivatable` entry is launched the way GIO openers do it: `org.freedesktop.Application`
/// on the (private) session bus, which starts the service; nothing is spawned by us.
@Suite("Launching DBusActivatable entries")
struct DBusActivationLaunchTests {
    let desktop = DesktopTestEnvironment.shared  // first: sets XDG_* and the private bus address

    /// A minimal org.freedesktop.Application in Python (GIO bindings): records the call and exits.
    static let serviceBody = """
        import json, os, sys
        from gi.repository import Gio, GLib
        name, out = sys.argv[1], sys.argv[2]
        path = "/" + name.replace(".", "/").replace("-", "_")
        node = Gio.DBusNodeInfo.new_for_xml('''<node><interface name="org.freedesktop.Application">
          <method name="Activate"><arg type="a{sv}" direction="in"/></method>
          <method name="Open"><arg type="as" direction="in"/><arg type="a{sv}" direction="in"/></method>
          <method name="ActivateAction"><arg type="s" direction="in"/><arg type="av" direction="in"/>
            <arg type="a{sv}" direction="in"/></method></interface></node>''')
        loop = GLib.MainLoop()
        def on_call(connection, sender, object_path, interface, method, parameters, invocation):
            arguments = parameters.unpack()
            record = {"method": method, "uris": arguments[0] if method == "Open" else [],
                      "platform": {key: str(value) for key, value in arguments[-1].items()}}
            with open(out + ".tmp", "w") as f:
                json.dump(record, f)
            os.rename(out + ".tmp", out)
            invocation.return_value(None)
            GLib.idle_add(loop.quit)
        def on_bus(connection, _name):
            connection.register_object(path, node.interfaces[0], on_call, None, None)
        Gio.bus_own_name(Gio.BusType.STARTER, name, Gio.BusNameOwnerFlags.NONE, on_bus, None, None)
        GLib.timeout_add_seconds(20, loop.quit)
        loop.run()

        """

    struct Call: Decodable, Equatable {
        let method: String
        let uris: [String]
        let platform: [String: String]
    }

    /// Installs a DBusActivatable entry and its D-Bus service file; returns the entry and where the
    /// service records the call it gets.
    func activatableEntry(_ stem: String) async throws -> (ApplicationEntry, String) {
        try await desktop.busReady()
        let id = "org.waypost.test." + desktop.uniqueName(stem)
        let service = try desktop.writeScript(desktop.root + "/services/\(id).py", Self.serviceBody)
        let record = desktop.root + "/services/\(id).call"
        try "[D-BUS Service]\nName=\(id)\nExec=/usr/bin/python3 \(service) \(id) \(record)\n"
            .write(toFile: desktop.dataHome + "/dbus-1/services/\(id).service", atomically: true, encoding: .utf8)
        // Exec would write a file if GIO spawned it instead of activating over D-Bus.
        let spawned = desktop.root + "/services/\(id).spawned"
        try await desktop.install(id: id, [
            "Type=Application", "Name=\(stem)", "DBusActivatable=true", "StartupNotify=true",
            "Exec=/bin/sh -c 'touch \(spawned)' %U",
        ])
        try await waitUntil("the catalog has \(id)") { (try? ApplicationCatalog().entry(id: id)) != nil }
        return (try ApplicationCatalog().entry(id: id), record)
    }

    func recordedCall(at path: String) async throws -> Call {
        try await waitUntil("the activated service records the call") { FileManager.default.fileExists(atPath: path) }
        return try JSONDecoder().decode(Call.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func activatesWithTheTokenInPlatformData() async throws {
        let (entry, record) = try await activatableEntry("Activatable")
        #expect(entry.isDBusActivatable)
        let pids = try Launcher().launch(entry, platformData: LaunchPlatformData(activationToken: "token-789"))
        #expect(pids == [], "D-Bus activation spawns nothing of ours")
        let call = try await recordedCall(at: record)
        #expect(call.method == "Activate")
        // GLib 2.74 sends the token as `desktop-startup-id` only; `activation-token` came in 2.76.
        #expect(call.platform["desktop-startup-id"] == "token-789")
        #expect(!FileManager.default.fileExists(atPath: record.replacingOccurrences(of: ".call", with: ".spawned")))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func opensURIsOverDBus() async throws {
        let (entry, record) = try await activatableEntry("Opener")
        let uris = ["waypost-test://open/1", "waypost-test://open/2"]
        let pids = try Launcher().launch(entry, uris: uris)
        #expect(pids == [])
        let call = try await recordedCall(at: record)
        #expect(call == Call(method: "Open", uris: uris, platform: [:]))
    }
}
