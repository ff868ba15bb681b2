@testable import ActivityStore
import Foundation
import Synchronization
import Testing

extension ActivityStore {
    /// Every saved activity of the app (every app's when nil), most recently used first: each page
    /// in turn, as `waypost activities list` reads them.
    func list(appID: String?) async throws -> [SavedRecord] {
        var (records, after): ([SavedRecord], Int64?) = ([], nil)
        repeat {
            let page = try await list(appID: appID, after: after, limit: limits.pageActivities)
            records += page.records
            after = page.next
        } while after != nil
        return records
    }
}

/// The store on real SQLite files in a throwaway directory.
@Suite("the activity store")
struct ActivityStoreTests {
    /// A directory removed when the test ends, and a clock the test moves.
    final class Place: Sendable {
        let directory: String
        let now = Mutex<Int64>(1_800_000_000)
        let logged = Mutex<[String]>([])
        var path: String { directory + "/state/waypost/activities.sqlite" }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func open(_ limits: ActivityStore.Limits = .init(), opening: ActivityStore.Opening = .now) throws -> ActivityStore {
            try ActivityStore(
                path: path, limits: limits, clock: { self.now.withLock { $0 } }, opening: opening,
                log: { line in self.logged.withLock { $0.append(line) } })
        }
    }

    static func activity(
        _ app: String, _ title: String, keywords: [String] = [], id: String? = nil, type: String = "org.example.show",
        target: String? = nil, expires: Int64? = nil, payload: String = "{}"
    ) -> ActivityToSave {
        ActivityToSave(
            appID: app, activityType: type, title: title, keywords: keywords, persistentIdentifier: id, target: target,
            expirationDate: expires, payload: Data(payload.utf8))
    }

    @Test("a search finds titles and keywords by word prefixes, case and accents ignored, a title hit first, then the most recent")
    func ranking() async throws {
        let place = try Place()
        let store = try place.open()
        try await store.save(Self.activity("org.example.IceCream", "Small Ice Cream", keywords: ["dessert"], id: "1"))
        try await store.save(Self.activity("org.example.IceCream", "Large Ice Cream", keywords: ["dessert"], id: "3"))
        try await store.save(Self.activity("org.example.Recipes", "Sorbet", keywords: ["ice", "dessert"], id: "9"))
        try await store.save(Self.activity("org.example.Contacts", "Crème Brûlée Shop", id: "c"))

        #expect(try await store.search(["ice"], limit: 10).map(\.title) == ["Large Ice Cream", "Small Ice Cream", "Sorbet"])
        let cre = try await store.search(["CRE"], limit: 10).map(\.title)
        #expect(Set(cre) == ["Large Ice Cream", "Small Ice Cream", "Crème Brûlée Shop"])
        // Equal scores: the more recently saved first.
        #expect(cre.firstIndex(of: "Large Ice Cream")! < cre.firstIndex(of: "Small Ice Cream")!)
        #expect(try await store.search(["brulee"], limit: 10).map(\.title) == ["Crème Brûlée Shop"])
        #expect(try await store.search(["ice", "sma"], limit: 10).map(\.title) == ["Small Ice Cream"])
        #expect(try await store.search(["ice"], limit: 1).map(\.title) == ["Large Ice Cream"])
        #expect(try await store.search(["nothing"], limit: 10).isEmpty)
    }

    @Test("a search term is data: quotes, operators, column filters and SQL match text or nothing, and break nothing")
    func termsAreData() async throws {
        let place = try Place()
        let store = try place.open()
        try await store.save(Self.activity("org.example.Notes", "Drop table notes OR NEAR title", id: "n"))
        for term in ["\"", "*", "OR", "NOT", "NEAR(", "title:drop", "'; DROP TABLE activity; --", "^drop", "(", "-", "\u{0}", ""] {
            _ = try await store.search([term], limit: 10)
        }
        #expect(try await store.search(["title:drop"], limit: 10).map(\.title) == ["Drop table notes OR NEAR title"])
        #expect(try await store.search(["\"OR\""], limit: 10).count == 1)
        #expect(try await store.search(["'; DROP TABLE notes; --"], limit: 10).count == 1)
        #expect(try await store.search(["*"], limit: 10).isEmpty)
        #expect(try await store.list(appID: nil).count == 1)
    }

    @Test("one row per app and persistent identifier, else per app, type and target; replacing keeps the id")
    func identity() async throws {
        let place = try Place()
        let store = try place.open()
        let first = try await store.save(Self.activity("org.example.A", "Old title", id: "x"))
        let again = try await store.save(Self.activity("org.example.A", "New title", id: "x"))
        let otherApp = try await store.save(Self.activity("org.example.B", "New title", id: "x"))
        #expect(first == again)
        #expect(otherApp != first)
        #expect(try await store.search(["old"], limit: 10).isEmpty)
        #expect(try await store.record(id: first)?.title == "New title")

        let byTarget = try await store.save(Self.activity("org.example.A", "Contact", target: "contact/1"))
        #expect(try await store.save(Self.activity("org.example.A", "Contact again", target: "contact/1")) == byTarget)
        #expect(try await store.save(Self.activity("org.example.A", "Contact", target: "contact/2")) != byTarget)
        #expect(try await store.save(Self.activity("org.example.A", "Contact", type: "org.example.edit", target: "contact/1")) != byTarget)
        #expect(try await store.list(appID: "org.example.A").count == 4)
    }

    @Test("queued saves are committed by the next read or write, in order; beyond the bound the caller is told to wait")
    func queuedSaves() async throws {
        let place = try Place()
        // A delay no test outlasts: only a read or a write commits what waits.
        let store = try place.open(.init(queuedSaves: 3, commitDelay: .seconds(3600)))
        var full: [Bool] = []
        for n in 1...5 { full.append(try store.enqueue(Self.activity("org.example.A", "Queued \(n)", id: "q\(n)"))) }
        #expect(full == [false, false, false, true, true])
        #expect(try await store.list(appID: "org.example.A").map(\.title) == (1...5).reversed().map { "Queued \($0)" })
        _ = try store.enqueue(Self.activity("org.example.A", "Queued 6", id: "q6"))
        try await store.deleteAll(appID: "org.example.A")
        #expect(try await store.list(appID: nil).isEmpty, "a save queued before a delete is deleted with it")
        _ = try store.enqueue(Self.activity("org.example.A", "Queued 7", id: "q7"))
        await store.committed()
        let reopened = try place.open()
        #expect(try await reopened.list(appID: nil).map(\.title) == ["Queued 7"])
        #expect(throws: StoreError.self) { try store.enqueue(Self.activity("org.example.A", "Big", payload: String(repeating: "x", count: 70_000))) }
    }

    @Test("a payload left to the writer is made when its commit runs, not when queued; a bound over the limit is refused; a payload that breaks its bound is logged and left out")
    func deferredPayloads() async throws {
        let place = try Place()
        let store = try place.open(.init(payloadBytes: 100, commitDelay: .seconds(3600)))
        let made = Mutex(0)
        func payload(_ text: String, bound: Int = 100) -> DeferredPayload {
            DeferredPayload(bound: bound) {
                made.withLock { $0 += 1 }
                return Data(text.utf8)
            }
        }
        _ = try store.enqueue(Self.activity("org.example.A", "Made", id: "m", payload: "unused"), payload: payload("made later"))
        #expect(made.withLock { $0 } == 0, "nothing is made when it is queued")
        #expect(throws: StoreError.payloadTooLarge(appID: "org.example.A", bytes: 101, limit: 100)) {
            try store.enqueue(Self.activity("org.example.A", "Refused", id: "r"), payload: payload("", bound: 101))
        }
        _ = try store.enqueue(Self.activity("org.example.A", "Broken", id: "b"), payload: payload(String(repeating: "x", count: 101)))
        _ = try store.enqueue(Self.activity("org.example.A", "After", id: "a", payload: "whole"))
        let saved = try await store.list(appID: "org.example.A")
        #expect(saved.map(\.title) == ["After", "Made"])
        #expect(saved.map { String(decoding: $0.payload, as: UTF8.self) } == ["whole", "made later"])
        #expect(made.withLock { $0 } == 2)
        #expect(place.logged.withLock { $0 }.contains { $0.contains("org.example.A") && $0.contains("101 bytes") })
    }

    @Test("an expired activity is never returned, and is deleted by the next commit of a save and when the store opens")
    func expiry() async throws {
        let place = try Place()
        let now = place.now.withLock { $0 }
        // The rows in the file, expired or not, as another program would read them.
        func rows() throws -> [String] {
            let db = try Connection(path: place.path, create: false, busyTimeout: .seconds(1))
            return try withExtendedLifetime(db) {  // a statement holds its connection unowned
                try db.statement("SELECT title FROM activity ORDER BY title").rows { row -> String in row[0] }
            }
        }
        do {
            let store = try place.open()
            let soon = try await store.save(Self.activity("org.example.A", "Soon gone", id: "s", expires: now + 60))
            try await store.save(Self.activity("org.example.A", "Staying", id: "t"))
            try await store.save(Self.activity("org.example.B", "Later gone", id: "l", expires: now + 120))
            #expect(try await store.search(["gone"], limit: 5).count == 2)
            place.now.withLock { $0 += 60 }
            #expect(try await store.search(["gone"], limit: 5).map(\.title) == ["Later gone"])
            #expect(try await store.list(appID: nil).map(\.title) == ["Later gone", "Staying"])
            #expect(try await store.record(id: soon) == nil)
            #expect(try rows() == ["Later gone", "Soon gone", "Staying"], "reads skip it; only a commit deletes it")
            try await store.save(Self.activity("org.example.C", "Saved later", id: "n"))
            #expect(try rows() == ["Later gone", "Saved later", "Staying"])
        }
        place.now.withLock { $0 += 60 }
        let reopened = try place.open()
        #expect(try rows() == ["Saved later", "Staying"], "the writer deletes what expired when it opens the file")
        #expect(try await reopened.list(appID: nil).map(\.title) == ["Saved later", "Staying"])
    }

    @Test("each app keeps at most its limit, the least recently used dropped; other apps keep theirs")
    func caps() async throws {
        let place = try Place()
        let store = try place.open(.init(perApplication: 3))
        try await store.save(Self.activity("org.example.B", "B one", id: "b1"))
        for n in 1...4 { try await store.save(Self.activity("org.example.A", "A \(n)", id: "a\(n)")) }
        #expect(try await store.list(appID: "org.example.A").map(\.title) == ["A 4", "A 3", "A 2"])
        // Using one again makes it recent: the next save drops another.
        try await store.save(Self.activity("org.example.A", "A 2", id: "a2"))
        try await store.save(Self.activity("org.example.A", "A 5", id: "a5"))
        #expect(try await store.list(appID: "org.example.A").map(\.title) == ["A 5", "A 2", "A 4"])
        #expect(try await store.list(appID: "org.example.B").map(\.title) == ["B one"])
    }

    @Test("a payload over the limit is refused with its size, and nothing is stored")
    func payloadLimit() async throws {
        let place = try Place()
        let store = try place.open(.init(payloadBytes: 100))
        await #expect(throws: StoreError.payloadTooLarge(appID: "org.example.A", bytes: 101, limit: 100)) {
            try await store.save(Self.activity("org.example.A", "Big", payload: String(repeating: "x", count: 101)))
        }
        #expect(try await store.list(appID: nil).isEmpty)
    }

    @Test("an app deletes only its own: another app's identifier is refused and nothing is deleted")
    func deletion() async throws {
        let place = try Place()
        let store = try place.open()
        for app in ["org.example.A", "org.example.B"] {
            try await store.save(Self.activity(app, "\(app) one", id: "1"))
            try await store.save(Self.activity(app, "\(app) two", id: "2"))
        }
        try await store.save(Self.activity("org.example.B", "B only", id: "b"))
        await #expect(throws: StoreError.notOwner(persistentIdentifier: "b", appID: "org.example.A")) {
            try await store.delete(appID: "org.example.A", persistentIdentifiers: ["1", "b"])
        }
        #expect(try await store.list(appID: "org.example.A").count == 2)
        #expect(try await store.delete(appID: "org.example.A", persistentIdentifiers: ["1", "nobody's"]) == 1)
        #expect(try await store.list(appID: "org.example.A").map(\.persistentIdentifier) == ["2"])
        #expect(try await store.list(appID: "org.example.B").count == 3)
        #expect(try await store.deleteAll(appID: "org.example.B") == 3)
        #expect(try await store.list(appID: nil).map(\.appID) == ["org.example.A"])
    }

    @Test("what was saved is there when the file is opened again")
    func reopening() async throws {
        let place = try Place()
        let id = try await place.open().save(Self.activity("org.example.A", "Kept", id: "k", payload: "{\"n\":1}"))
        let reopened = try place.open()
        #expect(try await reopened.record(id: id)?.payload == Data("{\"n\":1}".utf8))
        // New saves are more recent than those of the earlier run.
        try await reopened.save(Self.activity("org.example.A", "Kept later", id: "l"))
        #expect(try await reopened.list(appID: nil).map(\.title) == ["Kept later", "Kept"])
    }

    @Test(
        "a file that is not a database is set aside with a log line, and an empty store takes its place: when the store opens, or at the first save of one opened then",
        arguments: [ActivityStore.Opening.now, .onFirstUse])
    func damagedFile(opening: ActivityStore.Opening) async throws {
        let place = try Place()
        try FileManager.default.createDirectory(
            atPath: (place.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: place.path))
        let store = try place.open(opening: opening)
        if opening == .onFirstUse { #expect(place.logged.withLock { $0 }.isEmpty, "nothing is read before the first use") }
        try await store.save(Self.activity("org.example.A", "After", id: "a"))
        #expect(try await store.search(["after"], limit: 5).count == 1)
        let logged = place.logged.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.contains("moved it to \(place.path).damaged-") == true)
        let aside = try FileManager.default.contentsOfDirectory(atPath: (place.path as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix("activities.sqlite.damaged-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: (place.path as NSString).deletingLastPathComponent + "/" + aside[0])) == garbage)
    }

    @Test("a store opened at first use makes nothing until it is used; its first save makes the directory and the file, and is kept")
    func opensAtFirstUse() async throws {
        let place = try Place()
        let store = try place.open(opening: .onFirstUse)
        #expect(!FileManager.default.fileExists(atPath: (place.path as NSString).deletingLastPathComponent))
        let id = try await store.save(Self.activity("org.example.A", "First", id: "f"))
        #expect(FileManager.default.fileExists(atPath: place.path))
        #expect(try await store.record(id: id)?.title == "First")
        #expect(try await place.open().search(["first"], limit: 5).map(\.id) == [id])
        #expect(place.logged.withLock { $0 }.isEmpty)
    }

    @Test("a store opened at first use searches before any save: an empty store, made then")
    func searchesAtFirstUse() async throws {
        let place = try Place()
        let store = try place.open(opening: .onFirstUse)
        #expect(try await store.search(["anything"], limit: 5).isEmpty)
        #expect(FileManager.default.fileExists(atPath: place.path))
    }
}
