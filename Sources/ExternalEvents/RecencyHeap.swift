internal import HeapModule

/// The most recently active scene among some of them, kept with lazy deletion: an entry goes stale
/// when its scene is activated again, closed or loses its place, and stale entries are dropped only
/// when they reach the top (or when they outnumber live ones), so every change costs O(log n).
struct RecencyHeap: Sendable {
    struct Entry: Comparable, Sendable {
        var stamp: UInt64
        var slot: Int32
        static func < (a: Entry, b: Entry) -> Bool { a.stamp < b.stamp }
    }

    private var heap = Heap<Entry>()

    var top: Entry? { heap.max }

    mutating func push(stamp: UInt64, slot: Int32) {
        heap.insert(Entry(stamp: stamp, slot: slot))
    }

    /// Drops stale entries from the top, and compacts when stale ones outnumber `live` by far.
    mutating func settle(live: Int, isCurrent: (Entry) -> Bool) {
        if heap.count > 2 * live + 32 {
            heap = Heap(heap.unordered.filter(isCurrent))
            return
        }
        while let top = heap.max, !isCurrent(top) { heap.removeMax() }
    }
}
