/// Every folded condition of every open scene, indexed so that finding the ones an event contains
/// does not cost more with more scenes, and so that changing a scene costs about its own conditions.
///
/// A large main automaton, and a few small ones (levels) for conditions added since it was built:
/// each commit builds a level of what it added, and a level merges with the one before it while
/// that one is no larger and the two hold at most `levelLimit` patterns (a binary counter, capped:
/// no change rebuilds more than that beside its own). When the levels hold half of what the main
/// one does, or number over `levelsBeforeMerge`, or tombstones are half, all merge into a new main one. A removed condition stays in its
/// automaton as a tombstone, matched but held by no scene, until that merge.
///
/// With `defersMerges` that big merge is never done inline: `beginMerge()` hands out a snapshot to
/// build anywhere (`MergeJob.build()`); routing goes on with the old automata (the levels of the
/// snapshot frozen, new ones beside them); `finishMerge(_:)` installs the result. So no change ever
/// costs the serving thread a rebuild of everything (Benchmarks/stress/churn.py).
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
    /// A few patterns added since the main automaton was built: an automaton of their own, or, for
    /// fewer than `levelLimit`, none — searched one by one, which costs an event less than building
    /// one costs every change.
    private struct Level: Sendable {
        var automaton: Automaton?
        var patterns: [(id: Int32, text: FoldedText)]
        init(_ patterns: [(id: Int32, text: FoldedText)]) {
            self.patterns = patterns
            automaton = patterns.count >= ConditionIndex.levelLimit ? Automaton(patterns: patterns) : nil
        }

        @inline(__always)
        func forEachMatch(in text: FoldedText, _ body: (Int32) -> Void) {
            if let automaton { return automaton.forEachMatch(in: text, body) }
            for pattern in patterns where text.contains(pattern.text) { body(pattern.id) }
        }
    }
    /// Largest (oldest) first.
    private var levels: [Level] = []
    /// The levels of a snapshot being merged elsewhere: still searched, never merged again.
    private var frozen: [Level] = []
    /// Added since the last commit.
    private var pending: [(id: Int32, text: FoldedText)] = []
    /// Patterns with no holder still sitting in an automaton.
    private var tombstones = 0
    /// Merges are handed out (`beginMerge`) instead of done inline.
    var defersMerges = false
    private var mergeDue = false
    /// The merge being built elsewhere.
    private var merging: MergeToken?

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
        pending.append((id, text))
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

    /// Makes a level of what the batch added (merging small levels), then merges everything when
    /// due — or, deferring merges, marks a merge due.
    mutating func commit() {
        if !pending.isEmpty {
            add(Level(pending))
            pending = []
        }
        let live = ids.count - tombstones
        let recent = levels.reduce(0) { $0 + $1.patterns.count }
        let due = recent > max(64, live / 2) || levels.count > Self.levelsBeforeMerge
            || (tombstones > 64 && tombstones * 2 > live)
        if due && !defersMerges {
            merge()
        } else if due && merging == nil {
            mergeDue = true
        }
    }

    /// Makes a merge due when some levels are searched condition by condition (those under
    /// `levelLimit`): every event pays about 0.7k instructions for each of their conditions on a
    /// 120-byte link, for as long as the app changes nothing. Deferred merges only: the daemon asks
    /// once the app's sets have been quiet a while, so a stream of changes starts no more merges.
    mutating func mergeLevelsSearchedOneByOne() {
        guard defersMerges, merging == nil, levels.contains(where: { $0.automaton == nil }) else { return }
        mergeDue = true
    }

    /// The largest level a change may build inline, and the smallest with an automaton: beyond it,
    /// levels wait for the main merge, so a change never builds more than this many conditions.
    static let levelLimit = 64
    /// More levels than this make the main merge due (each level is one more scan per event).
    static let levelsBeforeMerge = 12

    private mutating func add(_ level: Level) {
        levels.append(level)
        while levels.count >= 2, levels[levels.count - 2].patterns.count <= levels[levels.count - 1].patterns.count,
            levels[levels.count - 2].patterns.count + levels[levels.count - 1].patterns.count <= Self.levelLimit {
            let last = levels.removeLast()
            levels[levels.count - 1] = Level(levels[levels.count - 1].patterns + last.patterns)
        }
    }

    /// The snapshot a due merge builds from, when one is due and none is being built.
    mutating func beginMerge() -> MergeJob? {
        guard mergeDue, merging == nil else { return nil }
        mergeDue = false
        var held: [(id: Int32, text: FoldedText)] = [], unheld: [(id: Int32, text: FoldedText)] = []
        held.reserveCapacity(ids.count - tombstones)
        // Called after a commit: nothing is pending, every id is in an automaton.
        for (text, id) in ids {
            if firstHolder[Int(id)] == nil { unheld.append((id, text)) } else { held.append((id, text)) }
        }
        let token = MergeToken()
        merging = token
        frozen = levels
        levels = []
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
        frozen = []
        // Unheld in the snapshot: forgotten (their ids reused), unless held again since.
        var revived: [(id: Int32, text: FoldedText)] = []
        for (id, text) in merged.unheld {
            if firstHolder[Int(id)] == nil {
                ids[text] = nil
                freeIDs.append(id)
            } else {
                revived.append((id, text))
            }
        }
        if !revived.isEmpty { add(Level(revived)) }
        tombstones = 0
        for id in merged.covered where firstHolder[Int(id)] == nil { tombstones += 1 }
        for level in levels {
            for pattern in level.patterns where firstHolder[Int(pattern.id)] == nil { tombstones += 1 }
        }
        commit()
        return true
    }

    /// Calls `body` for every holder of every condition occurring in `text`, at least once each.
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
        for level in frozen { level.forEachMatch(in: text, visit) }
        for level in levels { level.forEachMatch(in: text, visit) }
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
        levels = []
        frozen = []
        pending = []
        tombstones = 0
        // A merge handed out meanwhile is stale now.
        (merging, mergeDue) = (nil, false)
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
