@testable import ActivityStore
import Foundation
import Synchronization
import Testing

/// What one read costs, whatever the store holds: the app with thousands of activities of
/// 15 KB each, scaled to the suite's time. Costs are the store's own counts of the rows SQLite
/// handed it and the payloads it took (`ActivityStore.reads`), before and after each call.
@Suite("reads bounded by what they return")
struct ActivityReadBoundsTests {
    typealias Place = ActivityStoreTests.Place

    /// A store holding `count` activities of `org.example.Big` with 15 KB payloads (one word,
    /// "common", in every title), and one of another app.
    static func filled(_ count: Int, _ limits: ActivityStore.Limits = .init(commitDelay: .seconds(3600))) async throws -> (Place, ActivityStore) {
        let place = try Place()
        let store = try place.open(limits)
        let payload = String(repeating: "u", count: 15_000)
        _ = try store.enqueue(ActivityStoreTests.activity("org.example.Other", "Other common", id: "o"))
        for n in 0..<count {
            _ = try store.enqueue(ActivityStoreTests.activity("org.example.Big", "Common \(n)", id: "\(n)", payload: payload))
        }
        await store.committed()
        return (place, store)
    }

    /// What `body` read.
    static func cost<Value>(_ store: ActivityStore, _ body: () async throws -> Value) async rethrows -> (Value, ReadCounts) {
        let before = store.reads
        let value = try await body()
        return (value, store.reads - before)
    }

    @Test("a menu's recent activities read five rows and no payload, out of 2,000 of 15 KB")
    func menusReadWhatTheyShow() async throws {
        let (_, store) = try await Self.filled(2000)
        let (recent, cost) = try await Self.cost(store) { try await store.recent(appID: "org.example.Big", limit: 5) }
        #expect(recent.map(\.title) == (1995..<2000).reversed().map { "Common \($0)" })
        #expect(cost.rows == 5)
        #expect(cost.blobs == 0)
        // What a desktop search's result list shows: one row each, no payload.
        let ids = try await store.searchIDs(["common"], limit: 100)
        let (summaries, metas) = try await Self.cost(store) { try await store.summaries(ids: ids) }
        #expect(summaries.map(\.id) == ids)
        #expect(metas.rows == ids.count && metas.blobs == 0)
    }

    @Test("a page reads at most its limit of rows and 1 MiB of payloads, and the pages together list every activity once")
    func pagesAreBounded() async throws {
        let (_, store) = try await Self.filled(2000)
        var (listed, after, pages): ([SavedRecord], Int64?, Int) = ([], nil, 0)
        repeat {
            let (page, cost) = try await Self.cost(store) { try await store.list(appID: "org.example.Big", after: after, limit: 1000) }
            #expect(page.records.count <= store.limits.pageActivities)
            #expect(cost.rows <= store.limits.pageActivities)
            #expect(cost.blobs == page.records.count)
            #expect(cost.blobBytes <= store.limits.pageBytes + 15_000)
            listed += page.records
            after = page.next
            pages += 1
        } while after != nil && pages < 100
        #expect(listed.map(\.title) == (0..<2000).reversed().map { "Common \($0)" })
        // Every app's listing, a page of one: the most recently used of all.
        let (first, cost) = try await Self.cost(store) { try await store.list(appID: nil, limit: 1) }
        #expect(first.records.map(\.title) == ["Common 1999"] && cost.rows == 1 && first.next != nil)
    }

    @Test("a page costs the same over 200 rows as over 2,000")
    func costIndependentOfSize() async throws {
        let (_, small) = try await Self.filled(200)
        let (_, large) = try await Self.cost(small) { try await small.list(appID: "org.example.Big", limit: 20) }
        let (_, big) = try await Self.filled(2000)
        let (_, larger) = try await Self.cost(big) { try await big.list(appID: "org.example.Big", limit: 20) }
        #expect(large == larger)
        #expect(larger.rows == 20)
    }

    @Test("a search for a word every activity holds, limit 1,000: 1 MiB of payloads read and returned, not 15 MB")
    func searchIsBounded() async throws {
        let (_, store) = try await Self.filled(2000)
        let (found, cost) = try await Self.cost(store) { try await store.search(["common"], limit: 1000) }
        #expect(!found.isEmpty)
        #expect(found.reduce(0) { $0 + $1.payload.count } <= store.limits.pageBytes)
        #expect(cost.blobs <= found.count + 1)
        #expect(cost.blobBytes <= store.limits.pageBytes + 15_000)
        // The ranking itself reads ids, at most the limit, never a row's payload.
        let (ids, ranking) = try await Self.cost(store) { try await store.searchIDs(["common"], limit: 1000) }
        #expect(ids.count == 1000 && ranking.rows == 1000 && ranking.blobs == 0)
        // Thirty-two terms of 1 KiB are refused before anything is read.
        let terms = (0..<32).map { term in (0..<340).map { "w\(term)x\($0)" }.joined(separator: " ").prefix(1024).description }
        let (_, refused) = await Self.cost(store) {
            await #expect(throws: StoreError.self) { try await store.search(terms, limit: 1000) }
        }
        #expect(refused == ReadCounts())
    }

    @Test("expired rows are stepped over, not replaced: a menu or a page reads no more rows for them")
    func expiredRowsAreSkipped() async throws {
        let place = try Place()
        let store = try place.open(.init(pageActivities: 3))
        let now = place.now.withLock { $0 }
        for n in 0..<6 {
            try await store.save(ActivityStoreTests.activity("org.example.A", "A \(n)", id: "\(n)", expires: n >= 4 ? now + 10 : nil))
        }
        place.now.withLock { $0 += 10 }
        let (recent, menu) = try await Self.cost(store) { try await store.recent(appID: "org.example.A", limit: 5) }
        #expect(recent.map(\.title) == ["A 3", "A 2", "A 1"])
        #expect(menu.rows == 5 && menu.blobs == 0)
        let (page, cost) = try await Self.cost(store) { try await store.list(appID: "org.example.A", limit: 3) }
        #expect(page.records.map(\.title) == ["A 3"])
        #expect(cost.rows == 3 && cost.blobs == 1)
        #expect(try await store.list(appID: "org.example.A", after: page.next, limit: 3).records.map(\.title) == ["A 2", "A 1", "A 0"])
    }
}
