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
        // Comments, odd spacing, other groups, a replaced line, an added line, no final newline.
        let original = "# my choices\n[Added Associations]\ntext/plain=gedit.desktop;\n\n[Default Applications]\n  x-scheme-handler/notes = org.example.Old.desktop;\ntext/html=firefox.desktop;\n\n# end, no newline"
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

    @Test func aMimeAppsListInstallCreatedIsRemovedAgain() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await desktop.installApp("org.example.Notes", mimeTypes: ["x-scheme-handler/notes"], declarations: [("main", ["kind": "window-group"])])
        try #require(await desktop.waypost("install").status == 0)
        #expect(try String(contentsOf: desktop.mimeAppsList, encoding: .utf8) == "[Default Applications]\nx-scheme-handler/notes=io.waypost.Dispatcher.desktop;\n")
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
