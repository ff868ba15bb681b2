/// Every folded condition of every open scene, indexed so that finding the ones an event contains
/// does not cost more with more scenes.
///
/// Two automata: a large main one, and a small one for conditions added since the main one was
/// built. Adding a condition rebuilds only the small one; when it outgrows √(conditions) (the size
/// that balances its rebuilds against the main one's), both merge into a new main one. A removed
/// condition stays in its automaton as a tombstone, matched but held by no scene, until the next
/// merge; so do the conditions of a scene whose sets changed.
///
/// With `defersMerges`, a merge is never done inline: `beginMerge()` hands out the snapshot to
/// build (anywhere, `MergeJob.build()`), routing goes on meanwhile with the old main automaton and
/// the small one, and `finishMerge(_:)` installs the result, so that a change costs the serving
/// thread about its own conditions and the small automaton, never a rebuild of everything.
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
    /// Merges are handed out (`beginMerge`) instead of done inline.
    var defersMerges = false
    private var mergeDue = false
    /// The merge being built elsewhere, and where `recentPatterns` added since its snapshot start.
    private var merging: MergeToken?
    private var recentSinceSnapshot = 0

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

    /// Rebuilds what a batch of changes made stale: the small automaton, or both when merging is due
    /// (or, deferring merges, marks one due).
    mutating func commit() {
        let live = ids.count - tombstones
        let recentLimit = max(32, Int(Double(live).squareRoot()))
        let due = recentPatterns.count - recentSinceSnapshot > recentLimit || (tombstones > 64 && tombstones * 2 > live)
        if due && !defersMerges {
            merge()
            return
        }
        if due && merging == nil { mergeDue = true }
        if recentDirty {
            recent = Automaton(patterns: recentPatterns)
            recentDirty = false
        }
    }

    /// The snapshot a due merge builds from, when one is due and none is being built.
    mutating func beginMerge() -> MergeJob? {
        guard mergeDue, merging == nil else { return nil }
        mergeDue = false
        var held: [(id: Int32, text: FoldedText)] = [], unheld: [(id: Int32, text: FoldedText)] = []
        held.reserveCapacity(ids.count - tombstones)
        for (text, id) in ids {
            if firstHolder[Int(id)] == nil { unheld.append((id, text)) } else { held.append((id, text)) }
        }
        let token = MergeToken()
        merging = token
        recentSinceSnapshot = recentPatterns.count
        return MergeJob(token: token, held: held, unheld: unheld)
    }

    /// Installs a merge built from this index's snapshot; a stale one (another snapshot's, or this
    /// index's before it was replaced) changes nothing.
    /// - Returns: whether it was installed.
    @discardableResult
    mutating func finishMerge(_ merged: MergedIndex) -> Bool {
        guard let token = merging, token === merged.token else { return false }
        merging = nil
        main = merged.automaton
        mainPatterns = merged.covered.count
        // What the new main one lacks: patterns added since the snapshot, and those unheld then but
        // held again since; the rest of the unheld ones are forgotten and their ids reused.
        var fresh = Array(recentPatterns[recentSinceSnapshot...])
        for (id, text) in merged.unheld {
            if firstHolder[Int(id)] == nil {
                ids[text] = nil
                freeIDs.append(id)
            } else {
                fresh.append((id, text))
            }
        }
        tombstones = 0
        for id in merged.covered where firstHolder[Int(id)] == nil { tombstones += 1 }
        for pattern in fresh where firstHolder[Int(pattern.id)] == nil { tombstones += 1 }
        recentPatterns = fresh
        recentSinceSnapshot = 0
        recentDirty = true
        commit()
        return true
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
        // A merge handed out meanwhile is stale now.
        (merging, mergeDue, recentSinceSnapshot) = (nil, false, 0)
    }
}

/// Which snapshot a merge was built from (compared by identity).
final class MergeToken: Sendable {}

/// A snapshot of an index's patterns, for building its next main automaton off the serving thread.
public struct MergeJob: Sendable {
    let token: MergeToken
    let held: [(id: Int32, text: FoldedText)]
    let unheld: [(id: Int32, text: FoldedText)]

    /// Builds the main automaton: the expensive part of a merge, in proportion to everything held.
    public func build() -> MergedIndex {
        MergedIndex(token: token, automaton: Automaton(patterns: held), covered: held.map(\.id), unheld: unheld)
    }
}

/// A built merge, for `SceneRouter.finishMerge(_:)`.
public struct MergedIndex: Sendable {
    let token: MergeToken
    let automaton: Automaton
    let covered: [Int32]
    let unheld: [(id: Int32, text: FoldedText)]
}
