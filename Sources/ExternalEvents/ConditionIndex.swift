/// Every folded condition of every open scene, indexed so that finding the ones an event contains
/// does not cost more with more scenes.
///
/// Two automata: a large main one, and a small one for conditions added since the main one was
/// built. Adding a condition rebuilds only the small one; when it outgrows √(conditions) (the size
/// that balances its rebuilds against the main one's), both merge into a new main one. A removed
/// condition stays in its automaton as a tombstone, matched but held by no scene, until the next
/// merge; so do the conditions of a scene whose sets changed.
struct ConditionIndex: Sendable {
    /// A scene condition that holds a pattern: the scene's slot, which of its conditions, and whether
    /// that condition is in the preferring (else the allowing) set.
    struct Holder: Sendable, Equatable {
        var slot: Int32
        var ordinal: Int32
        var preferring: Bool
    }

    private var ids: [FoldedText: Int32] = [:]
    private var patterns: [FoldedText?] = []
    private var holders: [[Holder]] = []
    private var freeIDs: [Int32] = []
    private var main = Automaton()
    private var mainPatterns = 0
    private var recent = Automaton()
    private var recentIDs: [Int32] = []
    private var recentDirty = false
    /// Patterns with no holder still sitting in an automaton.
    private var tombstones = 0

    /// Registers a condition held by `holder`; returns its pattern id. Call `commit()` after a batch.
    mutating func insert(_ text: FoldedText, by holder: Holder) -> Int32 {
        if let id = ids[text] {
            if holders[Int(id)].isEmpty { tombstones -= 1 }
            holders[Int(id)].append(holder)
            return id
        }
        let id: Int32
        if let free = freeIDs.popLast() {
            id = free
            patterns[Int(id)] = text
            holders[Int(id)] = [holder]
        } else {
            id = Int32(patterns.count)
            patterns.append(text)
            holders.append([holder])
        }
        ids[text] = id
        recentIDs.append(id)
        recentDirty = true
        return id
    }

    /// Forgets that `holder` holds pattern `id`. Call `commit()` after a batch.
    mutating func remove(_ id: Int32, by holder: Holder) {
        guard let at = holders[Int(id)].firstIndex(of: holder) else { return }
        holders[Int(id)].swapAt(at, holders[Int(id)].count - 1)
        holders[Int(id)].removeLast()
        if holders[Int(id)].isEmpty { tombstones += 1 }
    }

    /// Rebuilds what a batch of changes made stale: the small automaton, or both when merging is due.
    mutating func commit() {
        let live = ids.count - tombstones
        let recentLimit = max(32, Int(Double(live).squareRoot()))
        if recentIDs.count > recentLimit || (tombstones > 64 && tombstones * 2 > live) {
            merge()
        } else if recentDirty {
            recent = Automaton(patterns: recentIDs.compactMap(entry))
            recentDirty = false
        }
    }

    /// Calls `body` for every holder of every condition occurring in `text` (once per occurrence).
    @inline(__always)
    func forEachHolder(in text: FoldedText, _ body: (Holder) -> Void) {
        let visit = { (id: Int32) in
            for holder in holders[Int(id)] { body(holder) }
        }
        if mainPatterns > 0 { main.forEachMatch(in: text.bytes, visit) }
        if !recentIDs.isEmpty { recent.forEachMatch(in: text.bytes, visit) }
    }

    /// Sizes, for tests and the benchmark: patterns held, tombstones, patterns in the small automaton.
    var statistics: (live: Int, tombstones: Int, recent: Int) {
        (ids.count - tombstones, tombstones, recentIDs.count)
    }

    private func entry(_ id: Int32) -> (id: Int32, bytes: [UInt8])? {
        patterns[Int(id)].map { (id, $0.bytes) }
    }

    private mutating func merge() {
        var keep: [(id: Int32, bytes: [UInt8])] = []
        keep.reserveCapacity(ids.count - tombstones)
        for id in patterns.indices {
            guard let text = patterns[id] else { continue }
            if holders[id].isEmpty {
                ids[text] = nil
                patterns[id] = nil
                freeIDs.append(Int32(id))
            } else {
                keep.append((Int32(id), text.bytes))
            }
        }
        main = Automaton(patterns: keep)
        mainPatterns = keep.count
        recent = Automaton()
        recentIDs = []
        recentDirty = false
        tombstones = 0
    }
}
