import Desktop
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite("Application catalog over real desktop entries")
struct ApplicationCatalogTests {
    let desktop = DesktopTestEnvironment.shared  // first: sets XDG_* before any GLib call
    let catalog: ApplicationCatalog

    init() throws { catalog = try ApplicationCatalog() }

    /// A participating entry whose program is `/bin/true`.
    func participating(_ id: String, schemes: [String], extra: [String] = []) async throws {
        try await desktop.install(id: id, [
            "Type=Application", "Name=\(id)", "Exec=/bin/true %u", "X-Waypost=true",
            "MimeType=" + schemes.map { "x-scheme-handler/\($0);" }.joined(),
        ] + extra)
    }

    @Test func readsAnOptedInEntry() async throws {
        let id = "org.waypost.test." + desktop.uniqueName("Notes")
        let scheme = desktop.uniqueName("notes")
        try await desktop.install(id: id, [
            "Type=Application", "Name=Notes Test", "Exec=/bin/true %u", "X-Waypost=true",
            "MimeType=x-scheme-handler/\(scheme);X-Scheme-Handler/Other-\(scheme);text/markdown;",
            "X-Waypost-Activity-Types=org.example.notes.view;org.example.notes.edit;",
            "StartupNotify=true",
        ])
        try await waitUntil("the catalog has \(id)") { (try? catalog.entry(id: id)) != nil }
        let entry = try catalog.entry(id: id)
        #expect(try catalog.entry(id: id + ".desktop") == entry)
        #expect(entry.id == id)
        #expect(entry.desktopFileID == id + ".desktop")
        #expect(entry.filePath == desktop.applications + "/\(id).desktop")
        #expect(entry.name == "Notes Test")
        #expect(entry.participates)
        #expect(entry.schemes == [scheme, "other-\(scheme)"])
        #expect(entry.declares(scheme: scheme.uppercased()))
        #expect(entry.contentTypes == ["text/markdown"])
        #expect(entry.activityTypes == ["org.example.notes.view", "org.example.notes.edit"])
        #expect(!entry.isDBusActivatable)
        #expect(entry.startupNotify)
        #expect(entry.exec == "/bin/true %u")
        #expect(entry.tryExec == nil)
        #expect(entry.executablePath == (try FileManager.default.destinationOfSymbolicLinkResolved("/bin/true")))
    }

    @Test func handlersAreOnlyParticipatingEntries() async throws {
        let scheme = desktop.uniqueName("mixed")
        let joined = "org.waypost.test." + desktop.uniqueName("Joined")
        let plain = "org.waypost.test." + desktop.uniqueName("Plain")
        try await participating(joined, schemes: [scheme])
        try await desktop.install(id: plain, [
            "Type=Application", "Name=Plain", "Exec=/bin/true %u", "MimeType=x-scheme-handler/\(scheme);",
        ])
        try await waitUntil("the scheme has one participating handler") { try catalog.handlers(forScheme: scheme).count == 1 }
        #expect(try catalog.handlers(forScheme: scheme).map(\.id) == [joined])
        // GIO itself sees both; only the opt-in keeps the plain one out.
        #expect(try catalog.fallbackHandler(forScheme: scheme)?.id == plain)
    }

    /// Reading GIO's index ahead, as the daemon does as it starts, changes no answer: a question
    /// asked while it runs gets the handlers, and an entry installed after it is seen.
    @Test func readingAheadChangesNoAnswer() async throws {
        let scheme = desktop.uniqueName("ahead")
        let first = "org.waypost.test." + desktop.uniqueName("Ahead")
        try await participating(first, schemes: [scheme])
        try await waitUntil("the scheme has its handler") { try catalog.handlers(forScheme: scheme).count == 1 }
        let shared = catalog
        let reading = Task.detached { shared.readAhead() }
        #expect(try catalog.handlers(forScheme: scheme).map(\.id) == [first])
        await reading.value
        let second = "org.waypost.test." + desktop.uniqueName("After")
        try await participating(second, schemes: [scheme])
        try await waitUntil("the entry installed after the reading handles the scheme") {
            try catalog.handlers(forScheme: scheme).map(\.id).sorted() == [first, second].sorted()
        }
    }

    @Test func mimeappsDefaultOrdersParticipatingHandlers() async throws {
        let scheme = desktop.uniqueName("pref")
        let first = "org.waypost.test." + desktop.uniqueName("Alpha")
        let second = "org.waypost.test." + desktop.uniqueName("Beta")
        try await participating(first, schemes: [scheme])
        try await participating(second, schemes: [scheme])
        try await waitUntil("the scheme has two participating handlers") { try catalog.handlers(forScheme: scheme).count == 2 }

        try desktop.setDefault(scheme: scheme, to: second)
        try await waitUntil("the default comes first") { try catalog.handlers(forScheme: scheme).map(\.id) == [second, first] }
        try desktop.setDefault(scheme: scheme, to: first)
        try await waitUntil("the new default comes first") { try catalog.handlers(forScheme: scheme).map(\.id) == [first, second] }
        // Mixed case in the URL is the same scheme.
        #expect(try catalog.handlers(forScheme: scheme.uppercased()).map(\.id) == [first, second])
    }

    @Test func activityTypeFindsTheParticipatingApp() async throws {
        let type = "org.example." + desktop.uniqueName("browse")
        let app = "org.waypost.test." + desktop.uniqueName("Browser")
        let bystander = "org.waypost.test." + desktop.uniqueName("Bystander")
        try await desktop.install(id: app, [
            "Type=Application", "Name=Browser", "Exec=/bin/true", "X-Waypost=true",
            "X-Waypost-Activity-Types=org.example.other;\(type);",
        ])
        // Lists the type but does not opt in: never chosen.
        try await desktop.install(id: bystander, [
            "Type=Application", "Name=Bystander", "Exec=/bin/true", "X-Waypost-Activity-Types=\(type);",
        ])
        try await waitUntil("the catalog lists the activity type's app") { catalog.applications(forActivityType: type).map(\.id) == [app] }
        #expect(catalog.applications(forActivityType: type + ".unknown").isEmpty)
        #expect(catalog.participatingEntries().contains { $0.id == app })
        #expect(!catalog.participatingEntries().contains { $0.id == bystander })
    }

    @Test func fallbackSkipsTheDispatcherAndParticipants() async throws {
        let scheme = desktop.uniqueName("legacy")
        let dispatcher = "org.waypost.test." + desktop.uniqueName("Dispatcher")
        let joined = "org.waypost.test." + desktop.uniqueName("Joined")
        let plain = "org.waypost.test." + desktop.uniqueName("Legacy")
        try await desktop.install(id: dispatcher, [
            "Type=Application", "Name=Dispatcher", "Exec=/bin/true %U", "DBusActivatable=true",
        ])  // like Waypost's own entry: the default by mimeapps.list only, no MimeType
        try await participating(joined, schemes: [scheme])
        try await desktop.install(id: plain, [
            "Type=Application", "Name=Legacy", "Exec=/bin/true %u", "MimeType=x-scheme-handler/\(scheme);",
        ])
        try desktop.setDefault(scheme: scheme, to: dispatcher)
        // The default counts even without MimeType, as GIO honours it.
        try await waitUntil("the default is the fallback handler") { try catalog.fallbackHandler(forScheme: scheme)?.id == dispatcher }
        #expect(try catalog.fallbackHandler(forScheme: scheme, excluding: dispatcher)?.id == plain)
        #expect(try catalog.fallbackHandler(forScheme: scheme, excluding: dispatcher + ".desktop")?.id == plain)

        let onlyJoined = desktop.uniqueName("onlyjoined")
        let other = "org.waypost.test." + desktop.uniqueName("Only")
        try await participating(other, schemes: [onlyJoined])
        try await waitUntil("the participating handler is known") { try !catalog.handlers(forScheme: onlyJoined).isEmpty }
        #expect(try catalog.fallbackHandler(forScheme: onlyJoined, excluding: dispatcher) == nil)
    }

    /// What the daemon's cache of answers relies on: once `onChange` returned, an entry installed after
    /// a lookup is reported (GIO tells only the monitors that exist when it notices the change).
    @Test func anEntryInstalledOnceOnChangeReturnedIsReported() async throws {
        let reports = Counter()
        await catalog.onChange { reports.add() }
        let scheme = desktop.uniqueName("watched")
        #expect(try catalog.handlers(forScheme: scheme).isEmpty)  // GIO now watches what it read
        let before = reports.value
        try await participating("org.waypost.test." + desktop.uniqueName("Watched"), schemes: [scheme])
        try await waitUntil("GIO reports the change") { reports.value > before }
    }

    /// GIO's directory cache refreshes from inotify monitors that run on GLib's worker thread, so a
    /// process that never iterates a main loop still sees entries installed after its first lookup.
    @Test func seesAnEntryInstalledAfterTheFirstLookup() async throws {
        let scheme = desktop.uniqueName("late")
        let id = "org.waypost.test." + desktop.uniqueName("Late")
        #expect(try catalog.handlers(forScheme: scheme).isEmpty)
        #expect(throws: CatalogError.notInstalled(applicationID: id)) { try catalog.entry(id: id) }
        // The mechanism: an inotify descriptor and GLib's worker thread, both made by that lookup.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        }
        #expect(descriptors.contains("anon_inode:inotify"))
        // The worker thread names itself once it runs, which may be a moment after the lookup made it.
        func threadNames() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap {
                try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
            }
        }
        try await waitUntil("GLib's main-context thread runs", context: "\(threadNames())") { threadNames().contains("gmain\n") }

        try await participating(id, schemes: [scheme])
        try await waitUntil("GIO picks up the new entry and mimeinfo.cache") { try catalog.handlers(forScheme: scheme).map(\.id) == [id] }

        try FileManager.default.removeItem(atPath: desktop.applications + "/\(id).desktop")
        try await desktop.refreshCache()
        try await waitUntil("the removed entry is gone") { try catalog.handlers(forScheme: scheme).isEmpty }
    }

    @Test func resolvesTheProgramAnEntryRuns() async throws {
        // Exec with a quoted absolute path holding a space, reached through a symlink.
        let real = try desktop.writeScript(desktop.root + "/programs/with space/Real Tool", "#!/bin/sh\n")
        let link = desktop.root + "/programs/with space/My \"Tool\""
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let quoted = "org.waypost.test." + desktop.uniqueName("Quoted")
        try await desktop.install(id: quoted, [
            "Type=Application", "Name=Quoted",
            #"Exec="\#(desktop.root)/programs/with space/My \\"Tool\\"" --flag %u"#,
        ])
        // TryExec alone (a DBusActivatable entry has no Exec), found through PATH.
        let toolName = desktop.uniqueName("waypost-tool")
        let tool = try desktop.writeScript(toolName, "#!/bin/sh\n")
        let tryExecOnly = "org.waypost.test." + desktop.uniqueName("TryExec")
        try await desktop.install(id: tryExecOnly, [
            "Type=Application", "Name=TryExec", "TryExec=\(toolName)", "DBusActivatable=true",
        ])
        // Exec's first word found through PATH; a `$` in it is not an environment variable.
        let dollarName = desktop.uniqueName("dollar") + "$HOME"
        let dollar = try desktop.writeScript(dollarName, "#!/bin/sh\n")
        let bare = "org.waypost.test." + desktop.uniqueName("Bare")
        try await desktop.install(id: bare, [
            "Type=Application", "Name=Bare", #"Exec="\#(dollarName.replacingOccurrences(of: "$", with: #"\\$"#))" %U"#,
            "TryExec=\(toolName)",
        ])
        try await waitUntil("the catalog has \(bare)") { (try? catalog.entry(id: bare)) != nil }

        let quotedEntry = try catalog.entry(id: quoted)
        #expect(quotedEntry.exec == #""\#(desktop.root)/programs/with space/My \"Tool\"" --flag %u"#)
        #expect(quotedEntry.executablePath == real)
        let tryExecEntry = try catalog.entry(id: tryExecOnly)
        #expect(tryExecEntry.exec == nil)
        #expect(tryExecEntry.isDBusActivatable)
        #expect(tryExecEntry.executablePath == tool)
        let bareEntry = try catalog.entry(id: bare)
        #expect(bareEntry.executablePath == dollar, "Exec's program wins over TryExec's")
        #expect(bareEntry.tryExec == toolName)
    }

    @Test func malformedEntriesAreReportedWithTheirFile() async throws {
        let scheme = desktop.uniqueName("broken")
        let broken = "org.waypost.test." + desktop.uniqueName("Broken")
        let brokenPath = try await desktop.installRaw(id: broken, """
            [Desktop Entry]
            Type=Application
            Name=Broken
            Exec=/bin/true %u
            X-Waypost=true
            MimeType=x-scheme-handler/\(scheme);
            this line is neither a key nor a group

            """)
        let missing = "org.waypost.test." + desktop.uniqueName("Missing")
        let missingPath = try await desktop.install(id: missing, [
            "Type=Application", "Name=Missing", "TryExec=/nonexistent/waypost-tool", "Exec=/bin/true %u",
            "X-Waypost=true", "MimeType=x-scheme-handler/\(scheme);",
        ])
        let good = "org.waypost.test." + desktop.uniqueName("Good")
        try await participating(good, schemes: [scheme])
        try await waitUntil("the good entry handles the scheme") { try catalog.handlers(forScheme: scheme).map(\.id) == [good] }

        let brokenError = #expect(throws: CatalogError.self) { try catalog.entry(id: broken) }
        guard case .unreadable(broken, brokenPath, let reason)? = brokenError else {
            Issue.record("expected unreadable(\(broken), \(brokenPath), …), got \(String(describing: brokenError))")
            return
        }
        #expect(reason.contains("this line is neither a key nor a group"))
        #expect(throws: CatalogError.unreadable(
            applicationID: missing, file: missingPath,
            reason: "TryExec program '/nonexistent/waypost-tool' is not installed"
        )) { try catalog.entry(id: missing) }
        let unreadable = catalog.unreadableEntries()
        #expect(unreadable.contains { if case .unreadable(broken, brokenPath, _) = $0 { true } else { false } })
        #expect(unreadable.contains { if case .unreadable(missing, missingPath, _) = $0 { true } else { false } })
    }

    @Test func badInputGetsTypedErrors() throws {
        for scheme in ["", "1http", "ht tp", "mailto:", "é"] {
            #expect(throws: CatalogError.invalidScheme(scheme)) { try catalog.handlers(forScheme: scheme) }
            #expect(throws: CatalogError.invalidScheme(scheme)) { try catalog.fallbackHandler(forScheme: scheme) }
        }
        for id in ["", ".desktop", "../evil", "a/b", ".hidden", "nul\0byte"] {
            #expect(throws: CatalogError.invalidApplicationID(id)) { try catalog.entry(id: id) }
        }
        let absent = "org.waypost.test." + desktop.uniqueName("Absent")
        #expect(throws: CatalogError.notInstalled(applicationID: absent)) { try catalog.entry(id: absent + ".desktop") }
    }
}

extension FileManager {
    /// The canonical path of `path`, all symlinks followed (for comparing with resolved programs).
    func destinationOfSymbolicLinkResolved(_ path: String) throws -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}

/// How often something happened, from any thread.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
