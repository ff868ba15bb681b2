import DBus
import Foundation
import Testing
import TestSupport

/// Links opened the ways users open them — `gio open`, `xdg-open` — reaching a participating app
/// written in Python from the XML contract, on a throwaway desktop where `waypost install --user`
/// is the only thing that tells the desktop about Waypost, and the bus starts the daemon itself.
@Suite struct EndToEndTests {
    /// A notes app: a list window that takes any link, and note 42's window that prefers its own.
    func installNotes(_ desktop: ThrowawayDesktop, running: Bool) async throws {
        try await desktop.installApp(
            "org.example.Notes", mimeTypes: ["x-scheme-handler/notes"],
            declarations: [("main", ["kind": "window-group"])],
            scenes: [
                (id: "list", declaration: "main", modifiers: [([], ["*"])]),
                (id: "note-42", declaration: "main", modifiers: [(["note=42"], [])]),
            ])
        let install = try await desktop.waypost("install", "--user")
        try #require(install.status == 0, "\(install.errors)")
        if running { try await desktop.start("org.example.Notes") }
    }

    func openedScenes(_ desktop: ThrowawayDesktop, _ app: String) -> [String] {
        desktop.received(app).map { "\($0["event"] ?? "?") \($0["scene"] ?? "?") \($0["uri"] ?? ($0["payload"] as? [String: Any])?["uri"] ?? "?")" }
    }

    @Test func gioOpenAndXdgOpenReachTheSceneTheRulesChoose() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installNotes(desktop, running: true)

        try await desktop.openAsPlanned("notes://show?note=42") {
            let gio = try await desktop.run("/usr/bin/gio", ["open", "notes://show?note=42"])
            #expect(gio.status == 0, "\(gio.errors)")
        }
        // No known desktop, an X display: xdg-open asks xdg-mime and runs the entry's Exec (waypost open).
        try await desktop.openAsPlanned("notes://show?note=7") {
            let generic = try await desktop.run("/usr/bin/xdg-open", ["notes://show?note=7"], extra: ["DISPLAY": ":99"])
            #expect(generic.status == 0, "\(generic.output)\(generic.errors)")
        }
        // GNOME: xdg-open hands the link to gio.
        try await desktop.openAsPlanned("notes://show?note=42&from=gnome") {
            let gnome = try await desktop.run("/usr/bin/xdg-open", ["notes://show?note=42&from=gnome"], extra: ["XDG_CURRENT_DESKTOP": "GNOME"])
            #expect(gnome.status == 0, "\(gnome.output)\(gnome.errors)")
        }

        #expect(openedScenes(desktop, "org.example.Notes") == [
            "OpenURL note-42 notes://show?note=42",
            "OpenURL list notes://show?note=7",
            "OpenURL note-42 notes://show?note=42&from=gnome",
        ])
        // The bus started the daemon for the app's registration; nothing else started one.
        #expect(desktop.readyCount("org.example.Notes") == 1)
    }

    @Test func anAppThatIsNotRunningIsStartedAndGetsTheLinkOnce() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await installNotes(desktop, running: false)

        try await desktop.openAsPlanned("notes://new?title=groceries") {
            let gio = try await desktop.run("/usr/bin/gio", ["open", "notes://new?title=groceries"])
            #expect(gio.status == 0, "\(gio.errors)")
        }
        // A second link, whose delivery `waypost open` awaits: the dispatcher has finished with the
        // first one by then, so a second copy or a second delivery of it would show before this.
        let barrier = try await desktop.waypost("open", "notes://show?note=after")
        #expect(barrier.status == 0, "\(barrier.errors)")
        // Routed as soon as it declared its scenes, before it reopened any: a new default scene.
        let events = desktop.received("org.example.Notes")
        #expect(events.count == 2, "\(events)")
        #expect(openedScenes(desktop, "org.example.Notes").last?.hasSuffix("notes://show?note=after") == true)
        #expect(events.first?["event"] as? String == "CreateScene")
        #expect(events.first?["declaration"] as? String == "main")
        #expect((events.first?["payload"] as? [String: Any])?["uri"] as? String == "notes://new?title=groceries")
        #expect(desktop.readyCount("org.example.Notes") == 1)
    }

    @Test func aSchemeWhoseOnlyHandlerDoesNotTakePartStillOpens() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installPlainApp("org.example.Plain", mimeTypes: ["x-scheme-handler/plain"])
        try await installNotes(desktop, running: false)
        #expect(!(try String(contentsOf: desktop.mimeAppsList, encoding: .utf8)).contains("x-scheme-handler/plain"))

        try #require(await desktop.run("/usr/bin/gio", ["open", "plain://one"]).status == 0)
        try await waitUntil("the plain app is launched with the link") { desktop.plainLines("org.example.Plain") == ["plain://one"] }
        // Through Waypost by hand: the dispatcher launches the scheme's handler with the link.
        try await desktop.openAsPlanned("plain://two") {
            let open = try await desktop.waypost("open", "plain://two")
            #expect(open.status == 0, "\(open.errors)")
        }
        try await waitUntil("the plain app gets the second link") { desktop.plainLines("org.example.Plain") == ["plain://one", "plain://two"] }
    }

    @Test func afterTheOptedInAppIsRemovedLinksGoToThePreviousDefault() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        // The user's previous choice does not list the scheme (GIO honours the default anyway), so
        // only the recorded previous default leads to it; GIO alone would pick Another.
        try await desktop.installPlainApp("org.example.Old", mimeTypes: [])
        try await desktop.installPlainApp("org.example.Another", mimeTypes: ["x-scheme-handler/notes"])
        try "[Default Applications]\nx-scheme-handler/notes=org.example.Old.desktop;\n".write(to: desktop.mimeAppsList, atomically: true, encoding: .utf8)
        try await installNotes(desktop, running: false)
        try await desktop.removeEntry("org.example.Notes")

        try await desktop.openAsPlanned("notes://show?note=1") {
            let open = try await desktop.waypost("open", "-v", "notes://show?note=1")
            #expect(open.status == 0, "\(open.errors)\n\(desktop.busLog)")
            #expect(open.output.contains("org.example.Old"), "\(open.output)")
        }
        try await waitUntil("the previous default is launched with the link") { desktop.plainLines("org.example.Old") == ["notes://show?note=1"] }
        #expect(desktop.plainLines("org.example.Another").isEmpty)

        // refresh gives the scheme back to the user's previous default.
        let refresh = try await desktop.waypost("refresh")
        #expect(refresh.status == 0, "\(refresh.errors)")
        #expect(try String(contentsOf: desktop.mimeAppsList, encoding: .utf8) == "[Default Applications]\nx-scheme-handler/notes=org.example.Old.desktop;\n")
    }

    @Test func aMarkdownFileReachesTheEditorsDocumentScene() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp(
            "org.example.Editor", mimeTypes: ["x-scheme-handler/editor", "text/markdown"],
            declarations: [("main", ["kind": "window-group", "matching": ["zzz"]]),
                           ("document", ["kind": "document-group", "content-types": ["text/markdown"]])])
        // The user already opens Markdown with the editor, so Waypost takes the type over.
        try "[Default Applications]\ntext/markdown=org.example.Editor.desktop;\n".write(to: desktop.mimeAppsList, atomically: true, encoding: .utf8)
        try #require(await desktop.waypost("install", "--user").status == 0)
        #expect(try String(contentsOf: desktop.mimeAppsList, encoding: .utf8).contains("text/markdown=io.waypost.Dispatcher.desktop;"))
        try await desktop.start("org.example.Editor")

        let file = desktop.root.appendingPathComponent("files/plan.md")
        try "# Plan\n\n- write it down\n".write(to: file, atomically: true, encoding: .utf8)
        // The dispatcher explains the same decision before anything is delivered.
        let connection = try await Connection(address: desktop.address)
        let explained = try await connection.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Explain", file.absoluteString).decode([String: Variant].self)
        #expect(try explained["app-id"]?.decode(as: String.self) == "org.example.Editor")
        #expect(try explained["declaration-id"]?.decode(as: String.self) == "document")
        #expect(try explained["rule"]?.decode(as: String.self) == "document-type")

        try await desktop.openAsPlanned(file.absoluteString) {
            let gio = try await desktop.run("/usr/bin/gio", ["open", file.path])
            #expect(gio.status == 0, "\(gio.errors)")
        }
        let event = try #require(desktop.received("org.example.Editor").first)
        #expect(event["event"] as? String == "CreateScene")
        #expect(event["declaration"] as? String == "document")
        #expect((event["payload"] as? [String: Any])?["uri"] as? String == file.absoluteString)
    }

    @Test func aLinkGioOpenedThatCannotBeDeliveredIsShownToTheUser() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.startNotificationServer()
        try await desktop.installApp(
            "org.example.Notes", mimeTypes: ["x-scheme-handler/notes"],
            declarations: [("main", ["kind": "window-group"])],
            scenes: [(id: "list", declaration: "main", modifiers: [([], ["*"])])],
            behaviour: ["OpenURL": "refuse", "CreateScene": "refuse"])
        try #require(await desktop.waypost("install", "--user").status == 0)
        try await desktop.start("org.example.Notes")

        // gio waits for the answer and prints it; a browser or file manager would not show it.
        let gio = try await desktop.run("/usr/bin/gio", ["open", "notes://show?note=9"])
        #expect(gio.status != 0)
        #expect(gio.errors.contains("was not delivered"), "\(gio.errors)")
        // The server creates its log before it writes the line: wait for the whole line.
        try await waitUntil("a notification is shown", context: desktop.busLog) {
            (try? String(contentsOf: desktop.log(of: "notifications"), encoding: .utf8))?.hasSuffix("\n") == true
        }
        let shown = try String(contentsOf: desktop.log(of: "notifications"), encoding: .utf8)
        #expect(shown.contains("A link could not be opened"))
        // Named by scheme, host and path (the server's JSON log escapes the "…"): a locked screen may show it.
        #expect(shown.contains(#"notes://show?\u2026"#) && !shown.contains("note=9"), "\(shown)")
        try await waitUntil("the daemon logs the failure") { desktop.busLog.contains("org.freedesktop.Application.Open from") }
    }
}
