import Desktop
import Dispatch
import Foundation
@testable import Dispatcher
import Synchronization
import TestSupport
import Testing

/// The desktop's answers remembered until it changes, over a directory that counts the questions.
@Suite("the desktop's answers, remembered")
struct CachedDirectoryTests {
    /// `DesktopAppsTests.Directory`, counting what it is asked; `during` runs inside each `entry(id:)`.
    final class Counting: ApplicationDirectory {
        let base: DesktopAppsTests.Directory
        let asked = Mutex<[String: Int]>([:])
        let during = Mutex<(@Sendable () -> Void)?>(nil)
        /// Runs inside each `installedPrograms()`.
        let duringPrograms = Mutex<(@Sendable () -> Void)?>(nil)

        init(_ base: DesktopAppsTests.Directory) { self.base = base }

        func count(_ question: String) { asked.withLock { $0[question, default: 0] += 1 } }
        func times(_ question: String) -> Int { asked.withLock { $0[question, default: 0] } }

        func handlers(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
            count("handlers \(scheme)")
            return try base.handlers(forScheme: scheme)
        }
        func entries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
            count("entries \(scheme)")
            return try base.entries(forScheme: scheme)
        }
        func participatingEntries() -> [ApplicationEntry] { base.participatingEntries() }
        func applications(forActivityType activityType: String) -> [ApplicationEntry] { base.applications(forActivityType: activityType) }
        func chosenApplicationID(forActivityType activityType: String) -> String? {
            count("chosen \(activityType)")
            return base.chosenApplicationID(forActivityType: activityType)
        }
        func entry(id: String) throws(CatalogError) -> ApplicationEntry {
            count("entry \(id)")
            during.withLock { $0 }?()
            return try base.entry(id: id)
        }
        func fallbackHandler(forScheme scheme: String, excluding excludedID: String?) throws(CatalogError) -> ApplicationEntry? {
            try base.fallbackHandler(forScheme: scheme, excluding: excludedID)
        }
        func previousDefault(forType contentType: String, excluding excludedID: String?) -> ApplicationEntry? {
            base.previousDefault(forType: contentType, excluding: excludedID)
        }
        func installedPrograms() -> InstalledPrograms {
            count("programs")
            duringPrograms.withLock { $0 }?()
            return base.installedPrograms()
        }
        func fallbackHandler(forContentType contentType: String, excluding excludedID: String?) -> ApplicationEntry? {
            base.fallbackHandler(forContentType: contentType, excluding: excludedID)
        }
        func shortcut(appID: String, action: String) throws(ShortcutLookupError) -> DesktopShortcut {
            count("shortcut \(appID) \(action)")
            return try base.shortcut(appID: appID, action: action)
        }
    }

    /// How many walks have started.
    final class Waiting: Sendable { let count = Mutex(0) }

    static let zoom = DesktopAppsTests.entry("zoom", participates: true, schemes: ["zoommtg"])

    @Test("an answer is asked once until the desktop changes; a failure is asked again every time")
    func remembered() throws {
        let base = Counting(DesktopAppsTests.Directory(installed: [Self.zoom]))
        let cache = CachedDirectory(base)
        for _ in 0..<3 { #expect(try cache.handlers(forScheme: "zoommtg").map(\.id) == ["zoom"]) }
        #expect(base.times("handlers zoommtg") == 1)
        cache.invalidate()
        #expect(try cache.handlers(forScheme: "zoommtg").map(\.id) == ["zoom"])
        #expect(base.times("handlers zoommtg") == 2)
        for _ in 0..<2 { #expect(throws: CatalogError.self) { try cache.entries(forScheme: "1nvalid") } }
        #expect(base.times("entries 1nvalid") == 2)
        for _ in 0..<2 { #expect(throws: CatalogError.notInstalled(applicationID: "gone")) { try cache.entry(id: "gone") } }
        #expect(base.times("entry gone") == 2)
        // The user's choice among continuers holds for the next activity: never remembered.
        for _ in 0..<2 { _ = cache.chosenApplicationID(forActivityType: "org.example.show") }
        #expect(base.times("chosen org.example.show") == 2)
    }

    @Test("an answer asked while the desktop changed is not kept: the next question asks again")
    func changedWhileAsked() throws {
        let base = Counting(DesktopAppsTests.Directory(installed: [Self.zoom]))
        let cache = CachedDirectory(base)
        base.during.withLock { $0 = { cache.invalidate() } }
        #expect(try cache.entry(id: "zoom").id == "zoom")
        base.during.withLock { $0 = nil }
        #expect(try cache.entry(id: "zoom").id == "zoom")
        #expect(try cache.entry(id: "zoom").id == "zoom")
        #expect(base.times("entry zoom") == 2)
    }

    @Test("the installed programs are not read in the asker's turn: nil, one reading on a thread of its own, then remembered")
    func programsReadAside() async throws {
        let base = Counting(DesktopAppsTests.Directory(installed: [Self.zoom]))
        let cache = CachedDirectory(base)
        #expect(cache.installedProgramsIfRead() == nil)
        try await waitUntil("the programs were read aside") { cache.installedProgramsIfRead() != nil }
        #expect(base.times("programs") == 1)
        cache.invalidate()
        #expect(cache.installedProgramsIfRead() == nil)
        try await waitUntil("the programs were read again") { cache.installedProgramsIfRead() != nil }
        #expect(base.times("programs") == 2)
    }

    @Test("walks that meet the programs being read await that one reading, holding no thread: more of them than Swift's pool has threads all wait at once, and get its answer")
    func programsAwaited() async throws {
        let base = Counting(DesktopAppsTests.Directory(installed: [Self.zoom]))
        let held = DispatchSemaphore(value: 0)
        base.duringPrograms.withLock { $0 = { held.wait() } }
        let expected = base.base.installedPrograms().signatures
        let cache = CachedDirectory(base)
        cache.readProgramsAhead()
        try await waitUntil("the reading is under way") { base.times("programs") == 1 }
        // Asked as the walks ask it: through the protocol.
        let directory: any ApplicationDirectory = cache
        // A walk that blocked its thread would leave the pool (one thread per core) to the first few.
        let walks = ProcessInfo.processInfo.activeProcessorCount * 4
        let waiting = Waiting()
        let answers = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<walks {
                    group.addTask {
                        waiting.count.withLock { $0 += 1 }
                        return await directory.installedProgramsWhenRead().signatures == expected
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        try await waitUntil("every walk waits for the reading", context: "\(waiting.count.withLock { $0 }) of \(walks)") {
            waiting.count.withLock { $0 } == walks
        }
        held.signal()
        let identified = try await withDeadline("every walk has the reading's answer") { await answers.value }
        #expect(identified == walks)
        #expect(base.times("programs") == 1)
    }
}
