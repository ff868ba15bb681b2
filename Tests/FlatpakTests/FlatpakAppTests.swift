import Foundation
import TestSupport
import Testing

/// A sandboxed app taking part in Waypost, as Flatpak runs it: its bus goes through `xdg-dbus-proxy`,
/// the dispatcher knows it by its sandbox's app id, and the desktop starts it with `flatpak run`.
/// Each test has its own private bus and throwaway user, with Waypost installed by
/// `waypost install --user` and the daemon started by D-Bus activation.
@Suite(.flatpakApp) struct FlatpakAppTests {
    static let notes = "org.example.Notes"

    /// A host notes app (sample_app.py, scheme `notes`): a list that takes any link, and note 42's
    /// window that prefers its own.
    func installNotes(_ desktop: FlatpakDesktop) async throws {
        try await desktop.installHostApp(
            Self.notes, scheme: "notes",
            scenes: [(id: "list", preferring: [], allowing: ["*"]), (id: "note-42", preferring: ["note=42"], allowing: [])])
    }

    @Test(.enabled(if: FlatpakApp.runsHere))
    func theSandboxedAppRegistersUnderItsOwnIDThroughTheProxy() async throws {
        try await FlatpakDesktop.with { desktop in
            try desktop.configureFlatpakApp(scenes: [(id: "list", preferring: [], allowing: ["*"])])
            try await desktop.installWaypost()

            #expect(try await desktop.startFlatpakApp() == "ready")
            let status = try await desktop.status()
            let process = try #require(
                status.split(separator: "\n").first { $0.hasPrefix("  \(FlatpakApp.id)  :") }, "\(status)\n\(desktop.busLog)")
            #expect(status.contains("  \(FlatpakApp.id)  list (main)  preferring []  allowing [\"*\"]"), "\(status)")
            // The process the dispatcher holds is the app's proxy: its bus went through xdg-dbus-proxy.
            let pid = try #require(process.split(separator: " ").last.map(String.init))
            #expect(
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == "/usr/bin/xdg-dbus-proxy",
                "\(process)")
        }
    }

    @Test(.enabled(if: FlatpakApp.runsHere))
    func aLinkOpenedInTheSandboxReachesItsSceneAndNamesTheFlatpakAppAsOpener() async throws {
        try await FlatpakDesktop.with { desktop in
            try await installNotes(desktop)
            try await desktop.installWaypost()
            try await desktop.startHostApp(Self.notes)
            let monitor = try await desktop.monitor()

            let uri = "notes://show?note=42"
            let open = try await desktop.openInSandbox(["dispatcher", uri])
            let answer = try await open.nextLine("the opener in the sandbox answers") ?? ""
            #expect(try await withDeadline("the opener in the sandbox exits") { try await open.status() } == 0, "\(answer)\n\(desktop.busLog)")
            #expect(answer.contains(#""app-id": "org.example.Notes""#) && answer.contains(#""scene-id": "note-42""#), "\(answer)")

            let routed = try await monitor.line(for: uri)
            #expect(routed.contains("→ \(Self.notes) scene note-42 ["), "\(routed)")
            #expect(routed.hasSuffix("(opened by \(FlatpakApp.id))"), "\(routed)")
            #expect(desktop.links(in: desktop.log(of: Self.notes)) == ["OpenURL note-42 \(uri)"])
        }
    }

    @Test(.enabled(if: FlatpakApp.runsHere))
    func aLinkOfItsSchemeStartsTheAppWithFlatpakRunAndArrivesOnce() async throws {
        try await FlatpakDesktop.with { desktop in
            try desktop.configureFlatpakApp(scenes: [(id: "list", preferring: [], allowing: ["*"])])
            try await desktop.installWaypost()
            let monitor = try await desktop.monitor()

            let uri = "\(FlatpakApp.scheme)://show?note=7"
            let gio = try await desktop.run("/usr/bin/gio", ["open", uri])
            #expect(gio.status == 0, "\(gio.errors)")
            let routed = try await monitor.line(for: uri)
            #expect(routed.contains("→ \(FlatpakApp.id) ") && routed.contains("[launch, "), "\(routed)\n\(desktop.busLog)")

            // A second link, whose delivery `waypost open` awaits: the dispatcher is done with the first
            // by then, so a second copy of it (over the bus, or on the command line) would show before.
            let after = "\(FlatpakApp.scheme)://show?note=after"
            let barrier = try await desktop.run(FlatpakDesktop.waypost, ["open", after])
            #expect(barrier.status == 0, "\(barrier.errors)")
            let links = desktop.links(in: desktop.flatpakLog)
            #expect(links.filter { $0.hasSuffix(" \(uri)") }.count == 1, "\(links)")
            #expect(links.last?.hasSuffix(" \(after)") == true, "\(links)")
            #expect(links.allSatisfy { !$0.hasPrefix("CommandLine ") }, "\(links)")
            #expect(desktop.events(in: desktop.flatpakLog).filter { $0["event"] as? String == "ready" }.count == 1)
            #expect(try await desktop.status().contains("  \(FlatpakApp.id)  :"))
        }
    }

    @Test(.enabled(if: FlatpakApp.runsHere))
    func theSandboxedAppCannotRegisterAsAHostApp() async throws {
        try await FlatpakDesktop.with { desktop in
            try await installNotes(desktop)
            // The same scenes as the host app: were it taken for Notes, it would get Notes' links.
            try desktop.configureFlatpakApp(as: Self.notes, scenes: [(id: "list", preferring: [], allowing: ["*"])])
            try await desktop.installWaypost()

            #expect(try await desktop.startFlatpakApp() == "refused io.waypost.Error.ProgramMismatch")
            let refusal = try #require(desktop.events(in: desktop.flatpakLog).first { $0["event"] as? String == "refused" })
            #expect((refusal["message"] as? String)?.contains("the Flatpak sandbox of \(FlatpakApp.id)") == true, "\(refusal)")
            #expect(!(try await desktop.status()).contains("  \(Self.notes)  :"))

            // Notes is not running: its link starts it, and the impostor (still on the bus) gets nothing.
            let monitor = try await desktop.monitor()
            let uri = "notes://show?note=5"
            let open = try await desktop.run(FlatpakDesktop.waypost, ["open", uri])
            #expect(open.status == 0, "\(open.errors)")
            let routed = try await monitor.line(for: uri)
            #expect(routed.contains("→ \(Self.notes) ") && routed.contains("[launch, "), "\(routed)")
            #expect(desktop.links(in: desktop.log(of: Self.notes)).map { $0.hasSuffix(" \(uri)") } == [true])
            #expect(desktop.links(in: desktop.flatpakLog).isEmpty)
        }
    }
}
