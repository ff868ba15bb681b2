/// An Aho–Corasick automaton over folded condition bytes, built once and then only read.
///
/// Flat arrays: the root has a dense 256-way table (most bytes of a URL start no condition and
/// cost one load); other nodes keep their few children sorted in one edge array. Scanning a text
/// costs O(text length + matches), whatever the number of conditions.
struct Automaton: Sendable {
    private var rootNext = [Int32](repeating: 0, count: 256)
    /// Children of node n are edges edgeStart[n] ..< edgeStart[n + 1].
    private var edgeStart: [Int32] = [0, 0]
    private var edgeByte: [UInt8] = []
    private var edgeTarget: [Int32] = []
    private var fail: [Int32] = [0]
    /// The condition that ends at a node, or -1.
    private var pattern: [Int32] = [-1]
    /// The node itself when a condition ends there, else the nearest suffix node where one does; 0 for none.
    private var firstOutput: [Int32] = [0]
    /// The nearest proper suffix node where a condition ends; 0 for none (the root never ends one).
    private var nextOutput: [Int32] = [0]

    /// An automaton that finds nothing.
    init() {}

    /// Builds the automaton for distinct, non-empty byte strings, each with its id.
    ///
    /// Allocation-light, since the small automaton is rebuilt on every scene change: the patterns
    /// are sorted, so the trie grows depth first with each node's children in byte order, and its
    /// edges go straight into flat arrays.
    init(patterns: [(id: Int32, text: FoldedText)]) {
        let order = patterns.indices.sorted { patterns[$0].text.utf8.lexicographicallyPrecedes(patterns[$1].text.utf8) }
        let capacity = patterns.reduce(1) { $0 + $1.text.utf8.count }
        var parent: [Int32] = [0], byteIn: [UInt8] = [0], ends: [Int32] = [-1]
        parent.reserveCapacity(capacity)
        byteIn.reserveCapacity(capacity)
        ends.reserveCapacity(capacity)
        var path: [Int32] = [0]
        var previous = "".utf8
        for index in order {
            let bytes = patterns[index].text.utf8
            var common = 0
            for (byte, before) in zip(bytes, previous) {
                guard byte == before else { break }
                common += 1
            }
            path.removeLast(path.count - 1 - common)
            for byte in bytes.dropFirst(common) {
                parent.append(path[path.count - 1])
                byteIn.append(byte)
                ends.append(-1)
                path.append(Int32(parent.count - 1))
            }
            ends[Int(path[path.count - 1])] = patterns[index].id
            previous = bytes
        }
        let count = parent.count

        // Children of each node, contiguous and (being created in sorted order) already byte-ordered.
        var edgeStart = [Int32](repeating: 0, count: count + 1)
        for node in 1..<max(1, count) { edgeStart[Int(parent[node]) + 1] += 1 }
        for node in 0..<count { edgeStart[node + 1] += edgeStart[node] }
        var fill = edgeStart
        var edgeByte = [UInt8](repeating: 0, count: max(0, count - 1))
        var edgeTarget = [Int32](repeating: 0, count: max(0, count - 1))
        for node in 1..<max(1, count) {
            let at = Int(fill[Int(parent[node])])
            fill[Int(parent[node])] += 1
            edgeByte[at] = byteIn[node]
            edgeTarget[at] = Int32(node)
            if parent[node] == 0 { rootNext[Int(byteIn[node])] = Int32(node) }
        }
        self.edgeStart = edgeStart
        self.edgeByte = edgeByte
        self.edgeTarget = edgeTarget
        self.pattern = ends

        // Failure links breadth first: a node's target is one step from its parent's target.
        fail = [Int32](repeating: 0, count: count)
        nextOutput = [Int32](repeating: 0, count: count)
        var queue = [Int32]()
        queue.reserveCapacity(count)
        queue.append(0)
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for edge in Int(edgeStart[Int(node)])..<Int(edgeStart[Int(node) + 1]) {
                let child = edgeTarget[edge]
                let target = node == 0 ? 0 : step(fail[Int(node)], edgeByte[edge])
                fail[Int(child)] = target
                nextOutput[Int(child)] = ends[Int(target)] >= 0 ? target : nextOutput[Int(target)]
                queue.append(child)
            }
        }
        firstOutput = (0..<count).map { ends[$0] >= 0 ? Int32($0) : nextOutput[$0] }
    }

    /// Calls `body` with the id of every condition occurring in `text`, once per occurrence.
    @inline(__always)
    func forEachMatch(in text: FoldedText, _ body: (Int32) -> Void) {
        var state: Int32 = 0
        for byte in text.utf8 {
            state = step(state, byte)
            var out = firstOutput[Int(state)]
            while out != 0 {
                body(pattern[Int(out)])
                out = nextOutput[Int(out)]
            }
        }
    }

    @inline(__always)
    private func step(_ from: Int32, _ byte: UInt8) -> Int32 {
        var state = from
        while state != 0 {
            var lo = Int(edgeStart[Int(state)])
            let hi = Int(edgeStart[Int(state) + 1])
            while lo < hi {
                let b = edgeByte[lo]
                if b == byte { return edgeTarget[lo] }
                if b > byte { break }
                lo += 1
            }
            state = fail[Int(state)]
        }
        return rootNext[Int(byte)]
    }

    /// Number of nodes, the root included.
    var nodeCount: Int { pattern.count }
}
