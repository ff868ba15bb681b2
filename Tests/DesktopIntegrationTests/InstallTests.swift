import Foundation
import Installation
import Testing

/// What `waypost install`, `refresh`, `uninstall` and `doctor` do to the files a desktop reads.
@Suite struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func contents(_ url: URL) -> Data? { try? Data(contentsOf: url) }

    @Test func uninstallRestoresMimeAppsListByteForByte() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp("org.example.Notes", mimeTypes: ["x-scheme-handler/notes", "x-scheme-handler/memo"], declarations: [("main", ["kind": "window-group"])])
        try await desktop.installPlainApp("org.example.Old", mimeTypes: ["x-scheme-handler/notes"])
        // Comments, odd spacing, other groups, a replaced line, an added line, no final newline; the
        // user's own association lines for the schemes handed over: an added one (which would
        // outweigh a removal) and a removed one that Waypost adds to.
        let original = """
            # my choices
            [Added Associations]
            text/plain=gedit.desktop;
            x-scheme-handler/notes = org.example.Old.desktop;

            [Default Applications]
              x-scheme-handler/notes = org.example.Old.desktop;
            text/html=firefox.desktop;

            [Removed Associations]
            x-scheme-handler/memo=org.example.Gone.desktop;

            # end, no newline
            """
        try Data(original.utf8).write(to: desktop.mimeAppsList)

        let install = try await desktop.waypost("install", "--user")
        try #require(install.status == 0, "\(install.errors)")
        let installed = try #require(contents(desktop.mimeAppsList))
        #expect(installed != Data(original.utf8))
        let text = String(decoding: installed, as: UTF8.self)
        #expect(text.contains("x-scheme-handler/notes=io.waypost.Dispatcher.desktop;"))
        #expect(text.contains("x-scheme-handler/memo=io.waypost.Dispatcher.desktop;"))
        #expect(text.hasPrefix("# my choices\n[Added Associations]\ntext/plain=gedit.desktop;\n"))
        let record = try String(contentsOf: desktop.record, encoding: .utf8)
        #expect(record.contains("x-scheme-handler/notes=org.example.Old.desktop;"))
        let entry = try String(contentsOf: desktop.applications.appendingPathComponent("io.waypost.Dispatcher.desktop"), encoding: .utf8)
        #expect(entry.contains("Exec=\(ThrowawayDesktop.waypost) open %U"))
        #expect(entry.contains("DBusActivatable=true"))
        // What the portal counts: GIO recommends Waypost's entry alone for each scheme, so it opens
        // links without asking, with its default, Waypost.
        for scheme in ["notes", "memo"] {
            let mime = try await desktop.run("/usr/bin/gio", ["mime", "x-scheme-handler/\(scheme)"])
            let recommended = mime.output.components(separatedBy: "Recommended applications:").last ?? ""
            #expect(recommended.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                == ["io.waypost.Dispatcher.desktop"], "\(mime.output)")
        }
        // The dispatcher still sees the apps GIO no longer recommends.
        let explained = try await desktop.waypost("explain", "notes://x")
        #expect(explained.output.contains("org.example.Notes"), "\(explained.output)\(explained.errors)")
        let service = try String(contentsOf: desktop.root.appendingPathComponent("data/dbus-1/services/io.waypost.Dispatcher.service"), encoding: .utf8)
        #expect(service.contains("Exec=\(ThrowawayDesktop.waypost) daemon"))

        // Idempotent: the same files again, and nothing reported.
        let again = try await desktop.waypost("install", "--user")
        #expect(again.status == 0)
        #expect(again.output.contains("nothing to change"), "\(again.output)")
        #expect(contents(desktop.mimeAppsList) == installed)
        #expect(try await desktop.waypost("refresh").status == 0)
        #expect(contents(desktop.mimeAppsList) == installed)

        let uninstall = try await desktop.waypost("uninstall")
        #expect(uninstall.status == 0, "\(uninstall.errors)")
        #expect(contents(desktop.mimeAppsList) == Data(original.utf8))
        #expect(!FileManager.default.fileExists(atPath: desktop.record.path))
        #expect(!FileManager.default.fileExists(atPath: desktop.applications.appendingPathComponent("io.waypost.Dispatcher.desktop").path))
    }

    @Test func installWebTakesHTTPAndHTTPSAndUninstallWebGivesThemBackByteForByte() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp("org.example.Notes", mimeTypes: ["x-scheme-handler/notes"], declarations: [("main", ["kind": "window-group"])])
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
        let original = "[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\ntext/html=org.example.Browser.desktop;\n# mine\n"
        try Data(original.utf8).write(to: desktop.mimeAppsList)

        let schemesOnly = try await desktop.waypost("install")
        try #require(schemesOnly.status == 0, "\(schemesOnly.errors)")
        let afterSchemes = try #require(contents(desktop.mimeAppsList))
        #expect(!String(decoding: afterSchemes, as: UTF8.self).contains("https=io.waypost"), "web links stay the browser's without --web")

        let web = try await desktop.waypost("install", "--web")
        try #require(web.status == 0, "\(web.errors)")
        #expect(web.output.contains("x-scheme-handler/https → Waypost → the app that owns the link's domain, else org.example.Browser.desktop"), "\(web.output)")
        let text = try String(contentsOf: desktop.mimeAppsList, encoding: .utf8)
        #expect(text.contains("x-scheme-handler/https=io.waypost.Dispatcher.desktop;"))
        #expect(text.contains("x-scheme-handler/http=io.waypost.Dispatcher.desktop;"))
        #expect(text.contains("text/html=org.example.Browser.desktop;"), "text/html only with --html")
        let record = try String(contentsOf: desktop.record, encoding: .utf8)
        #expect(record.contains("x-scheme-handler/https=org.example.Browser.desktop;"))
        #expect(record.contains("Web=true"))
        // A later plain install or refresh keeps the web types.
        #expect(try await desktop.waypost("refresh").status == 0)
        #expect(try String(contentsOf: desktop.mimeAppsList, encoding: .utf8) == text)

        let back = try await desktop.waypost("uninstall", "--web")
        try #require(back.status == 0, "\(back.errors)")
        #expect(contents(desktop.mimeAppsList) == afterSchemes)
        #expect(try String(contentsOf: desktop.record, encoding: .utf8).contains("Web=false"))
        try #require(await desktop.waypost("uninstall").status == 0)
        #expect(contents(desktop.mimeAppsList) == Data(original.utf8))
    }

    @Test func plainUninstallGivesWebTypesBackToo() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
        let original = "[Added Associations]\ntext/plain=gedit.desktop;\n"
        try Data(original.utf8).write(to: desktop.mimeAppsList)
        let web = try await desktop.waypost("install", "--web", "--html")
        try #require(web.status == 0, "\(web.errors)")
        let text = try String(contentsOf: desktop.mimeAppsList, encoding: .utf8)
        #expect(text.contains("text/html=io.waypost.Dispatcher.desktop;"))
        let entry = try String(contentsOf: desktop.applications.appendingPathComponent("io.waypost.Dispatcher.desktop"), encoding: .utf8)
        #expect(entry.contains("MimeType=text/html;x-scheme-handler/http;x-scheme-handler/https;"), "\(entry)")
        try #require(await desktop.waypost("uninstall").status == 0)
        #expect(contents(desktop.mimeAppsList) == Data(original.utf8))
        // Taken with --web only, and given back with --web: the created group goes too.
        try #require(await desktop.waypost("install", "--web").status == 0)
        try #require(await desktop.waypost("uninstall", "--web").status == 0)
        #expect(contents(desktop.mimeAppsList) == Data(original.utf8))
    }

    @Test func doctorReportsABrowserThatTookHTTPSBack() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installPlainApp("org.example.Browser", mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https"])
        try #require(await desktop.waypost("install", "--web").status == 0)
        let healthy = try await desktop.waypost("doctor")
        #expect(healthy.output.contains("ok   x-scheme-handler/https: web links go through Waypost; those no app owns go to org.example.Browser.desktop"), "\(healthy.output)")
        // The browser asks to be the default again and the user says yes.
        let text = try String(contentsOf: desktop.mimeAppsList, encoding: .utf8)
        try text.replacingOccurrences(of: "x-scheme-handler/https=io.waypost.Dispatcher.desktop;", with: "x-scheme-handler/https=org.example.Browser.desktop;")
            .write(to: desktop.mimeAppsList, atomically: true, encoding: .utf8)
        let doctor = try await desktop.waypost("doctor")
        #expect(doctor.status == 1)
        #expect(doctor.output.contains("FIX  x-scheme-handler/https: org.example.Browser.desktop took the default back from Waypost"), "\(doctor.output)")
        #expect(doctor.output.contains("ok   x-scheme-handler/http: web links go through Waypost"))
    }

    @Test("doctor: a GSConnect whose schema has launch-urls is named, with how to turn it on; offers through it always ask")
    func doctorNamesGSConnectsLaunchURLs() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try #require(await desktop.waypost("install", "--user").status == 0)
        let schemas = desktop.root.appendingPathComponent("data/glib-2.0/schemas")
        try FileManager.default.createDirectory(at: schemas, withIntermediateDirectories: true)
        try """
            <schemalist><schema id="org.gnome.Shell.Extensions.GSConnect.Plugin.Share">
            <key name="receive-files" type="b"><default>true</default></key>
            <key name="launch-urls" type="b"><default>false</default></key>
            </schema></schemalist>
            """.write(to: schemas.appendingPathComponent("org.gnome.Shell.Extensions.GSConnect.gschema.xml"), atomically: true, encoding: .utf8)
        let doctor = try await desktop.waypost("doctor")
        #expect(doctor.output.contains("note GSConnect is installed: a handoff it receives is offered as from \"a device through GSConnect\" and always asks"), "\(doctor.output)")
        #expect(doctor.output.contains("opens a shared link only with the device's launch-urls setting on"), "\(doctor.output)")
        #expect(doctor.output.contains("launch-urls true`"), "\(doctor.output)")
    }

    @Test func anAppDeclaringHTTPSDoesNotTakeAllWebLinks() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp("org.example.Greedy", mimeTypes: ["x-scheme-handler/https", "x-scheme-handler/greedy"], declarations: [("main", ["kind": "window-group"])])
        let install = try await desktop.waypost("install")
        try #require(install.status == 0, "\(install.errors)")
        let text = try String(contentsOf: desktop.mimeAppsList, encoding: .utf8)
        #expect(text.contains("x-scheme-handler/greedy=io.waypost.Dispatcher.desktop;"))
        #expect(!text.contains("x-scheme-handler/https"), "\(text)")
    }

    @Test func aMimeAppsListInstallCreatedIsRemovedAgain() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp("org.example.Notes", mimeTypes: ["x-scheme-handler/notes"], declarations: [("main", ["kind": "window-group"])])
        try #require(await desktop.waypost("install").status == 0)
        #expect(try String(contentsOf: desktop.mimeAppsList, encoding: .utf8) == """
            [Default Applications]
            x-scheme-handler/notes=io.waypost.Dispatcher.desktop;
            [Removed Associations]
            x-scheme-handler/notes=org.example.Notes.desktop;

            """)
        try #require(await desktop.waypost("uninstall").status == 0)
        #expect(!FileManager.default.fileExists(atPath: desktop.mimeAppsList.path))
    }

    @Test func refreshPicksUpAppsInstalledLater() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try #require(await desktop.waypost("install").status == 0)
        try await desktop.installApp("org.example.Photos", mimeTypes: ["x-scheme-handler/photos"], declarations: [("main", ["kind": "window-group"])])
        let doctor = try await desktop.waypost("doctor")
        #expect(doctor.status != 0)
        #expect(doctor.output.contains("photos: org.example.Photos opts in but org.example.Photos.desktop is the default"), "\(doctor.output)")
        #expect(doctor.output.contains("→ run `waypost refresh`"))
        let refresh = try await desktop.waypost("refresh")
        #expect(refresh.status == 0, "\(refresh.errors)")
        #expect(refresh.output.contains("x-scheme-handler/photos → Waypost → org.example.Photos"), "\(refresh.output)")
        let healthy = try await desktop.waypost("doctor")
        #expect(healthy.status == 0, "\(healthy.output)")
        #expect(healthy.output.contains("ok   photos: links go through Waypost to org.example.Photos"))
        #expect(healthy.output.contains("ok   the session bus can start the dispatcher"))
    }

    @Test func aCorruptMimeAppsListIsNamedWithItsLineAndLeftAlone() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp("org.example.Notes", mimeTypes: ["x-scheme-handler/notes"], declarations: [("main", ["kind": "window-group"])])
        let corrupt = Data("[Default Applications]\ntext/html=firefox.desktop;\nthis line is no key file syntax\n".utf8)
        try corrupt.write(to: desktop.mimeAppsList)
        let install = try await desktop.waypost("install", "--user")
        #expect(install.status == 1)
        #expect(install.errors.contains("\(desktop.mimeAppsList.path):3: not a [group] header"), "\(install.errors)")
        #expect(install.errors.contains("nothing was changed"))
        #expect(contents(desktop.mimeAppsList) == corrupt)
        #expect(!FileManager.default.fileExists(atPath: desktop.record.path))
        #expect(!FileManager.default.fileExists(atPath: desktop.applications.appendingPathComponent("io.waypost.Dispatcher.desktop").path))
        let doctor = try await desktop.waypost("doctor")
        #expect(doctor.status != 0)
        #expect(doctor.output.contains("mimeapps.list:3:"))
    }

    @Test func aCorruptOptedInEntryIsNamedWithItsLineAndNothingIsOverwritten() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        let original = Data("[Default Applications]\ntext/html=firefox.desktop;\n".utf8)
        try original.write(to: desktop.mimeAppsList)
        try await desktop.writeEntry("org.example.Broken", "[Desktop Entry]\nType=Application\nName=Broken\nExec=/bin/true\nX-Waypost=true\nMimeType x-scheme-handler/broken;\n")
        let install = try await desktop.waypost("install", "--user")
        #expect(install.status == 1)
        let file = desktop.applications.appendingPathComponent("org.example.Broken.desktop").path
        #expect(install.errors.contains("\(file):6: not a [group] header, a key=value pair or a # comment"), "\(install.errors)")
        #expect(contents(desktop.mimeAppsList) == original)
        #expect(!FileManager.default.fileExists(atPath: desktop.record.path))
        let doctor = try await desktop.waypost("doctor")
        #expect(doctor.output.contains("\(file):6:"), "\(doctor.output)")
    }

    @Test("the files in desktop/ and dbus/ are what install writes, placeholders left in")
    func templatesMatch() async throws {
        func file(_ path: String) throws -> String { try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8) }
        #expect(try file("desktop/io.waypost.Dispatcher.desktop") == HandlerFiles.desktopEntry(program: "@WAYPOST@", mimeTypes: []))
        #expect(try file("dbus/io.waypost.Dispatcher.service") == HandlerFiles.dbusService(program: "@WAYPOST@"))
        #expect(try file("dbus/waypost.service") == HandlerFiles.systemdUnit(program: "@WAYPOST@"))
    }
}
