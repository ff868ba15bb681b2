import Desktop
import Foundation
import Testing
import TestSupport

/// `Launcher.launch(_:adding:…)` through GIO for real: a program that writes down its arguments and
/// tokens shows where the added arguments went and that the launch carried the opener's token.
struct LaunchWithArgumentsTests {
    /// GLib reads the XDG variables once per process: the test process's own, set first.
    let desktop = DesktopTestEnvironment.shared

    @Test func addedArgumentsComeBeforeTheLinkAndTheTokenTravelsEvenForADBusActivatableEntry() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-added-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let record = root + "/record"
        try Data("#!/bin/sh\nprintf '%s\\n' \"$@\" \"token=$XDG_ACTIVATION_TOKEN\" \"id=$DESKTOP_STARTUP_ID\" > \(root)/out.tmp && mv \(root)/out.tmp \(root)/out\n".utf8)
            .write(to: URL(fileURLWithPath: record))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: record)
        let id = "org.example.Recorder\(UInt32.random(in: 0...UInt32.max))"
        let file = root + "/\(id).desktop"
        // DBusActivatable: a plain launch would send Activate over the bus; this one must spawn.
        let exec = "\(record) --new-window %u"
        try Data("[Desktop Entry]\nType=Application\nName=Recorder\nExec=\(exec)\nDBusActivatable=true\nStartupNotify=true\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let entry = ApplicationEntry(
            id: id, filePath: file, name: "Recorder", participates: false, schemes: [], contentTypes: [], activityTypes: [],
            isDBusActivatable: true, startupNotify: true, exec: exec, tryExec: nil, executablePath: record)
        let pids = try Launcher().launch(
            entry, adding: ["-P", "Work $HOME \"100%\""], uris: ["https://example.invalid/x"],
            platformData: LaunchPlatformData(activationToken: "token-1"))
        #expect(pids.count == 1)
        try await waitUntil("the recorder wrote its arguments") { FileManager.default.fileExists(atPath: root + "/out") }
        let lines = try String(contentsOfFile: root + "/out", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines == ["--new-window", "-P", "Work $HOME \"100%\"", "https://example.invalid/x", "token=token-1", "id=token-1", ""])
    }

    @Test func anEntryWhoseFileIsGoneIsRefusedNamingTheFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-added-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let entry = ApplicationEntry(
            id: "org.example.Gone\(UInt32.random(in: 0...UInt32.max))", filePath: root + "/gone.desktop", name: "Gone", participates: false,
            schemes: [], contentTypes: [], activityTypes: [], isDBusActivatable: false, startupNotify: false, exec: "/bin/true",
            tryExec: nil, executablePath: "/bin/true")
        #expect { try Launcher().launch(entry, adding: ["--incognito"], uris: ["https://x.invalid/"]) } throws: { error in
            (error as? LaunchError)?.message.hasPrefix(root + "/gone.desktop: ") == true
        }
    }
}
