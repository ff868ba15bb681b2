@testable import Desktop
import Foundation
import Testing
import TestSupport

/// An app writes its entry and registers a moment later, before GIO's directory cache has caught up.
///
/// To know that the cache has NOT caught up (not merely hope so), the entries go into a subdirectory
/// of an applications directory: GIO watches each applications directory but not below, so a file
/// written into a subdirectory it already scanned stays unknown to its cache until something changes
/// the directory above. The system data directory (`<root>/system-data`) is written by these tests
/// alone, and the suite runs serialized, so nothing changes it while a test runs; each test still
/// asks GIO's cache afterwards that it did not know the entry, the premise of what it shows.
@Suite("Entries GIO's directory cache does not know yet", .serialized)
struct EntryBeforeGIORefreshTests {
    let desktop = DesktopTestEnvironment.shared  // first: sets XDG_* before any GLib call
    let catalog: ApplicationCatalog

    init() throws { catalog = try ApplicationCatalog() }

    /// A fresh subdirectory of `<data dir>/applications`, already scanned by GIO's cache: waits for
    /// the cache to know a witness entry written into it (the cache tells no one when it rescans).
    func scannedSubdirectory(of dataDirectory: String, extraFiles: [(path: String, text: String)] = []) async throws -> (path: String, idPrefix: String) {
        let name = desktop.uniqueName("vendor")
        let directory = dataDirectory + "/applications/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try entryText(name: "Witness").write(toFile: directory + "/witness.desktop", atomically: true, encoding: .utf8)
        for file in extraFiles { try file.text.write(toFile: file.path, atomically: true, encoding: .utf8) }
        let witness = name + "-witness.desktop"
        try await waitUntil("GIO's cache scans \(directory)") { AppInfoReference.loadFromCheckedFile(desktopFileID: witness) != nil }
        return (directory, name + "-")
    }

    func entryText(name: String, exec: String = "/bin/true %u", _ extra: [String] = []) -> String {
        (["[Desktop Entry]", "Type=Application", "Name=\(name)", "Exec=\(exec)", "X-Waypost=true"] + extra)
            .joined(separator: "\n") + "\n"
    }

    /// Whether GIO's cache alone answers for `desktopFileID`, and from which file.
    func cachedFile(_ desktopFileID: String) -> String? {
        AppInfoReference.loadFromCheckedFile(desktopFileID: desktopFileID)?.filename
    }

    @Test("a valid entry is read from its file; invalid and Hidden ones stay refused, with the reason")
    func entriesTheCacheHasNotSeen() async throws {
        let (directory, prefix) = try await scannedSubdirectory(of: desktop.root + "/system-data")
        let scheme = desktop.uniqueName("fresh")
        let marker = desktop.root + "/" + desktop.uniqueName("launched")
        let program = try desktop.writeScript(desktop.uniqueName("fresh-app"), "#!/bin/sh\ntouch \"$1\"\n")
        try entryText(name: "Fresh", exec: "\(program) \(marker)", ["MimeType=x-scheme-handler/\(scheme);"])
            .write(toFile: directory + "/fresh.desktop", atomically: true, encoding: .utf8)
        try entryText(name: "Missing", ["TryExec=/nonexistent/waypost-fresh-tool"])
            .write(toFile: directory + "/missing.desktop", atomically: true, encoding: .utf8)
        try entryText(name: "Deleted", ["Hidden=true"])
            .write(toFile: directory + "/deleted.desktop", atomically: true, encoding: .utf8)

        // At once, no wait: what the daemon does when the app registers.
        let fresh = try catalog.entry(id: prefix + "fresh")
        #expect(fresh.id == prefix + "fresh", "the id the file's place gives it, not GIO's base name")
        #expect(fresh.desktopFileID == prefix + "fresh.desktop")
        #expect(fresh.filePath == directory + "/fresh.desktop")
        #expect(fresh.name == "Fresh")
        #expect(fresh.participates)
        #expect(fresh.schemes == [scheme])
        #expect(fresh.executablePath == program)
        #expect(throws: CatalogError.unreadable(
            applicationID: prefix + "missing", file: directory + "/missing.desktop",
            reason: "TryExec program '/nonexistent/waypost-fresh-tool' is not installed"
        )) { try catalog.entry(id: prefix + "missing") }
        #expect(throws: CatalogError.unreadable(
            applicationID: prefix + "deleted", file: directory + "/deleted.desktop",
            reason: "Hidden=true (the entry is deleted)"
        )) { try catalog.entry(id: prefix + "deleted") }
        // `waypost doctor` agrees: the invalid and the Hidden entry, not the fresh one.
        let unreadable = Set(catalog.unreadableEntries().compactMap { error -> String? in
            if case .unreadable(let id, _, _) = error, id.hasPrefix(prefix) { id } else { nil }
        })
        #expect(unreadable == [prefix + "missing", prefix + "deleted"])
        let participating = catalog.participatingEntries().map(\.id).filter { $0.hasPrefix(prefix) }
        #expect(participating == [prefix + "fresh", prefix + "witness"])

        // Launching reloads by id: the fresh entry runs although GIO's cache does not know it.
        let pids = try Launcher().launch(fresh)
        #expect(pids.count == 1)
        try await waitUntil("the fresh entry's program runs", context: "the fresh entry's program never ran") { FileManager.default.fileExists(atPath: marker) }

        #expect(cachedFile(prefix + "fresh.desktop") == nil,
                "GIO's cache knew the entry by now: this run did not show the lag")
    }

    @Test("a new entry shadowing a cached one in a lower data directory wins, as it will in GIO")
    func aNewEntryShadowsTheCachedOne() async throws {
        // The lower entry, top-level in the system applications directory, is cached with the witness.
        let userSide = try await scannedSubdirectory(of: desktop.dataHome)
        let id = userSide.idPrefix + "shadowed"
        let systemFile = desktop.root + "/system-data/applications/" + id + ".desktop"
        _ = try await scannedSubdirectory(
            of: desktop.root + "/system-data", extraFiles: [(systemFile, entryText(name: "System copy"))])
        try await waitUntil("GIO's cache has the system copy") { cachedFile(id + ".desktop") == systemFile }

        let userFile = userSide.path + "/shadowed.desktop"
        try entryText(name: "User copy").write(toFile: userFile, atomically: true, encoding: .utf8)
        let entry = try catalog.entry(id: id)
        #expect(entry.filePath == userFile)
        #expect(entry.name == "User copy")
        // The user applications directory is shared with tests running beside this suite: a change
        // they make there lets GIO rescan it, and then this run shows only the outcome, not the lag.
        // Hidden in the user directory deletes the lower entry, as in GIO.
        try entryText(name: "User copy", ["Hidden=true"]).write(toFile: userFile, atomically: true, encoding: .utf8)
        #expect(throws: CatalogError.unreadable(
            applicationID: id, file: userFile, reason: "Hidden=true (the entry is deleted)"
        )) { try catalog.entry(id: id) }
    }
}
