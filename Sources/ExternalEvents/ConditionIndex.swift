/// Every folded condition of every open scene, indexed so that finding the ones an event contains
/// does not cost more with more scenes.
///
/// Two automata: a large main one, and a small one for conditions added since the main one was
/// built. Adding a condition rebuilds only the small one; when it outgrows √(conditions) (the size
/// that balances its rebuilds against the main one's), both merge into a new main one. A removed
/// condition stays in its automaton as a tombstone, matched but held by no scene, until the next
/// merge; so do the conditions of a scene whose sets changed.
struct ConditionIndex: Sendable {
    /// A scene condition that holds a pattern: the scene's slot, whether the condition is in its
    /// preferring (else its allowing) set, and where in that set the condition as given is.
    struct Holder: Sendable, Equatable {
        var slot: Int32
        var position: Int32
        var preferring: Bool
    }

    /// Each pattern's id, for as long as one of the automata holds it.
    private var ids: [FoldedText: Int32] = [:]
    /// Per pattern id, its first holder, or nil when no scene holds it; most conditions have one.
    private var firstHolder: [Holder?] = []
    /// The holders after the first, for the few patterns that several scenes share.
    private var moreHolders: [Int32: [Holder]] = [:]
    private var freeIDs: [Int32] = []
    private var main = Automaton()
    private var mainPatterns = 0
    private var recent = Automaton()
    private var recentPatterns: [(id: Int32, text: FoldedText)] = []
    private var recentDirty = false
    /// Patterns with no holder still sitting in an automaton.
    private var tombstones = 0

    /// Registers a condition held by `holder`. Call `commit()` after a batch.
    mutating func insert(_ text: FoldedText, by holder: Holder) {
        if let id = ids[text] {
            if firstHolder[Int(id)] == nil {
                firstHolder[Int(id)] = holder
                tombstones -= 1
            } else {
                moreHolders[id, default: []].append(holder)
            }
            return
        }
        let id: Int32
        if let free = freeIDs.popLast() {
            id = free
            firstHolder[Int(id)] = holder
        } else {
            id = Int32(firstHolder.count)
            firstHolder.append(holder)
        }
        ids[text] = id
        recentPatterns.append((id, text))
        recentDirty = true
    }

    /// Forgets that `holder` holds the condition `text`. Call `commit()` after a batch.
    mutating func remove(_ text: FoldedText, by holder: Holder) {
        guard let id = ids[text] else { return }
        if firstHolder[Int(id)] == holder {
            if var more = moreHolders.removeValue(forKey: id) {
                firstHolder[Int(id)] = more.removeLast()
                if !more.isEmpty { moreHolders[id] = more }
            } else {
                firstHolder[Int(id)] = nil
                tombstones += 1
            }
        } else if var more = moreHolders.removeValue(forKey: id) {
            if let at = more.firstIndex(of: holder) {
                more.swapAt(at, more.count - 1)
                more.removeLast()
            }
            if !more.isEmpty { moreHolders[id] = more }
        }
    }

    /// Rebuilds what a batch of changes made stale: the small automaton, or both when merging is due.
    mutating func commit() {
        let live = ids.count - tombstones
        let recentLimit = max(32, Int(Double(live).squareRoot()))
        if recentPatterns.count > recentLimit || (tombstones > 64 && tombstones * 2 > live) {
            merge()
        } else if recentDirty {
            recent = Automaton(patterns: recentPatterns)
            recentDirty = false
        }
    }

    /// Calls `body` for every holder of every condition occurring in `text` (once per occurrence).
    @inline(__always)
    func forEachHolder(in text: FoldedText, _ body: (Holder) -> Void) {
        let visit = { (id: Int32) in
            guard let first = firstHolder[Int(id)] else { return }
            body(first)
            if !moreHolders.isEmpty, let more = moreHolders[id] {
                for holder in more { body(holder) }
            }
        }
        if mainPatterns > 0 { main.forEachMatch(in: text, visit) }
        if !recentPatterns.isEmpty { recent.forEachMatch(in: text, visit) }
    }

    private mutating func merge() {
        var keep: [(id: Int32, text: FoldedText)] = []
        keep.reserveCapacity(ids.count - tombstones)
        var unheld: [FoldedText] = []
        for (text, id) in ids {
            if firstHolder[Int(id)] == nil {
                unheld.append(text)
                freeIDs.append(id)
            } else {
                keep.append((id, text))
            }
        }
        for text in unheld { ids[text] = nil }
        main = Automaton(patterns: keep)
        mainPatterns = keep.count
        recent = Automaton()
        recentPatterns = []
        recentDirty = false
        tombstones = 0
    }
}
