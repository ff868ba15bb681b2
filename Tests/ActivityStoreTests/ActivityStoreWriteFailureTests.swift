@testable import ActivityStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Commits that fail: SQLite's own "database or disk is full", made by `PRAGMA max_page_count` on
/// the writer's connection (a file that may grow no further), then lifted, as space is freed.
@Suite("the activity store when it cannot write")
struct ActivityStoreWriteFailureTests {
    typealias Place = ActivityStoreTests.Place

    /// The writer's file may grow by `pages` more pages (nil: as SQLite allows).
    static func limitGrowth(_ store: ActivityStore, to pages: Int?) throws {
        try store.writer.sync { db throws(SQLiteError) in
            let now = try db.statement("PRAGMA page_count").value(Int.self) ?? 0
            try db.execute("PRAGMA max_page_count = \(pages.map { now + $0 } ?? 1_073_741_823)")
        }.get()
    }

    static func isFull(_ error: any Error) -> Bool {
        guard case .cannotWrite(_, let sqlite, _) = error as? StoreError else { return false }
        return sqlite.primaryCode == 13  // SQLITE_FULL
    }

    @Test("while commits fail, saves are refused by name and what was acknowledged is kept; once they can, all of it is saved, in order")
    func fullDisk() async throws {
        let place = try Place()
        let store = try place.open(.init(perApplication: 50, commitDelay: .seconds(3600), retryDelay: .seconds(3600)))
        try await store.save(ActivityStoreTests.activity("org.example.A", "Before", id: "before"))
        try Self.limitGrowth(store, to: 0)
        // Acknowledged, then the commit finds the file full.
        let payload = String(repeating: "p", count: 4000)
        for n in 0..<20 { #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "Kept \(n)", id: "k\(n)", payload: payload)) == false) }
        await store.committed()

        do {
            _ = try store.enqueue(ActivityStoreTests.activity("org.example.A", "Refused", id: "r"))
            Issue.record("a save was queued while the store cannot write")
        } catch {
            #expect(Self.isFull(error))
            #expect(error.description.contains("20 acknowledged activities are kept"), "\(error)")
        }
        // Each attempt writes the 20 kept again and fails: none of it counts towards the app's 50.
        for _ in 0..<5 {
            await #expect { try await store.save(ActivityStoreTests.activity("org.example.A", "Refused too", id: "r2")) } throws: { Self.isFull($0) }
        }
        // Reads go on, from what was committed.
        #expect(try await store.list(appID: nil).map(\.title) == ["Before"])
        #expect(place.logged.withLock { $0 }.filter { $0.contains("cannot be written") }.count == 1)

        try Self.limitGrowth(store, to: nil)
        try await store.save(ActivityStoreTests.activity("org.example.A", "After", id: "after"))
        let titles = try await store.list(appID: nil).map(\.title)
        #expect(titles == ["After"] + (0..<20).reversed().map { "Kept \($0)" } + ["Before"])
        #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "Queued again", id: "q")) == false)
        #expect(place.logged.withLock { $0 }.contains { $0.contains("is written again") })
    }

    @Test("a commit that fails after writing part of its saves counts none of them: however many attempts failed, the app keeps every save once one succeeds")
    func failedAttemptsCountNothing() async throws {
        let place = try Place()
        let store = try place.open(.init(perApplication: 30, commitDelay: .seconds(3600), retryDelay: .seconds(3600)))
        try await store.save(ActivityStoreTests.activity("org.example.A", "Before", id: "before"))
        // A failure at the last insert of a transaction, as a full disk fails at its commit: the
        // inserts before it ran, and were rolled back.
        try store.writer.sync { db throws(SQLiteError) in
            try db.execute("CREATE TEMP TRIGGER full_disk BEFORE INSERT ON activity WHEN new.title = 'Last' BEGIN SELECT RAISE(ABORT, 'as if the disk were full'); END")
        }.get()
        for n in 0..<20 { _ = try store.enqueue(ActivityStoreTests.activity("org.example.A", "Kept \(n)", id: "k\(n)")) }
        _ = try store.enqueue(ActivityStoreTests.activity("org.example.A", "Last", id: "last"))
        await store.committed()
        for _ in 0..<3 { await #expect(throws: StoreError.self) { try await store.save(ActivityStoreTests.activity("org.example.A", "Refused", id: "r")) } }
        try store.writer.sync { db throws(SQLiteError) in try db.execute("DROP TRIGGER full_disk") }.get()
        try await store.save(ActivityStoreTests.activity("org.example.A", "After", id: "after"))
        #expect(try await store.list(appID: "org.example.A").map(\.title) == ["After", "Last"] + (0..<20).reversed().map { "Kept \($0)" } + ["Before"])
    }

    @Test("the kept saves are saved by the retry once the file can grow, with no publish to make it try")
    func retriedWithoutAPublish() async throws {
        let place = try Place()
        let (written, wroteAgain) = AsyncStream.makeStream(of: Void.self)
        let store = try ActivityStore(
            path: place.path, limits: .init(commitDelay: .seconds(3600), retryDelay: .milliseconds(20)), clock: { place.now.withLock { $0 } },
            log: { line in
                place.logged.withLock { $0.append(line) }
                if line.contains("is written again") { wroteAgain.yield() }
            })
        try await store.save(ActivityStoreTests.activity("org.example.A", "Before", id: "before"))
        try Self.limitGrowth(store, to: 0)
        _ = try store.enqueue(ActivityStoreTests.activity("org.example.A", "Kept", id: "k", payload: String(repeating: "p", count: 8000)))
        await store.committed()
        #expect(throws: StoreError.self) { try store.enqueue(ActivityStoreTests.activity("org.example.A", "Refused", id: "r")) }
        try Self.limitGrowth(store, to: nil)
        try await withDeadline("the retry saved the kept activity") { for await _ in written { return } }
        #expect(try await store.list(appID: nil).map(\.title) == ["Kept", "Before"])
    }
}
