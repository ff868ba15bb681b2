/// An Aho–Corasick automaton over folded condition bytes, built once and then only read.
///
/// Flat arrays, 17 bytes a node: the root has a dense 256-way table (most bytes of a URL start no
/// condition and cost one load); other nodes are numbered breadth first, so that the children of
/// node n are the consecutive nodes `firstChild[n] ..< firstChild[n + 1]`, in byte order, and no
/// edge needs to name its target. Scanning a text costs O(text length + matches), whatever the
/// number of conditions.
struct Automaton: Sendable {
    private var rootNext = [Int32](repeating: 0, count: 256)
    /// The byte on the edge into each node (0 for the root).
    private var byte: [UInt8] = [0]
    /// Children of node n are the nodes firstChild[n] ..< firstChild[n + 1].
    private var firstChild: [Int32] = [1, 1]
    private var fail: [Int32] = [0]
    /// The condition that ends at a node, or -1.
    private var pattern: [Int32] = [-1]
    /// The nearest proper suffix node where a condition ends; 0 for none (the root never ends one).
    private var nextOutput: [Int32] = [0]

    /// An automaton that finds nothing.
    init() {}

    /// Builds the automaton for distinct, non-empty byte strings, each with its id.
    ///
    /// Allocation-light, since the small automaton is rebuilt on every scene change: the patterns
    /// are sorted, so the trie grows depth first with each node's children in byte order; one
    /// breadth-first pass then renumbers it.
    init(patterns: [(id: Int32, text: FoldedText)]) {
        // Every pattern's bytes in one buffer, so that sorting and walking them is plain indexing.
        var joined: [UInt8] = [], offsets: [Int] = [0]
        joined.reserveCapacity(patterns.reduce(0) { $0 + $1.text.utf8.count })
        offsets.reserveCapacity(patterns.count + 1)
        for pattern in patterns {
            joined.append(contentsOf: pattern.text.utf8)
            offsets.append(joined.count)
        }
        let buffer = joined, bounds = offsets
        let sorted = patterns.indices.sorted { a, b in
            var i = bounds[a], j = bounds[b]
            while i < bounds[a + 1] && j < bounds[b + 1] {
                if buffer[i] != buffer[j] { return buffer[i] < buffer[j] }
                i += 1
                j += 1
            }
            return i == bounds[a + 1] && j < bounds[b + 1]
        }

        // The trie, depth first: each node's parent, incoming byte and pattern.
        var parent: [Int32] = [0], byteIn: [UInt8] = [0], ending: [Int32] = [-1]
        parent.reserveCapacity(buffer.count + 1)
        byteIn.reserveCapacity(buffer.count + 1)
        ending.reserveCapacity(buffer.count + 1)
        var path: [Int32] = [0]
        var previous = 0..<0
        for index in sorted {
            let range = bounds[index]..<bounds[index + 1]
            var common = 0
            while common < min(range.count, previous.count)
                && buffer[range.lowerBound + common] == buffer[previous.lowerBound + common] { common += 1 }
            path.removeLast(path.count - 1 - common)
            for position in (range.lowerBound + common)..<range.upperBound {
                parent.append(path[path.count - 1])
                byteIn.append(buffer[position])
                ending.append(-1)
                path.append(Int32(parent.count - 1))
            }
            ending[Int(path[path.count - 1])] = patterns[index].id
            previous = range
        }
        let count = parent.count

        // Children of each depth-first node, contiguous and (created in sorted order) byte-ordered.
        var childStart = [Int32](repeating: 0, count: count + 1)
        for node in 1..<count { childStart[Int(parent[node]) + 1] += 1 }
        for node in 0..<count { childStart[node + 1] += childStart[node] }
        var fill = childStart
        var children = [Int32](repeating: 0, count: count)
        for node in 1..<count {
            children[Int(fill[Int(parent[node])])] = Int32(node)
            fill[Int(parent[node])] += 1
        }

        // Breadth-first numbering: `order` lists depth-first nodes in their new order.
        var order = [Int32](repeating: 0, count: count)
        var next = 1
        for position in 0..<count {
            let node = Int(order[position])
            for edge in Int(childStart[node])..<Int(childStart[node + 1]) {
                order[next] = children[edge]
                next += 1
            }
        }
        byte = order.map { byteIn[Int($0)] }
        pattern = order.map { ending[Int($0)] }
        firstChild = [Int32](repeating: 1, count: count + 1)
        for position in 0..<count {
            let node = Int(order[position])
            firstChild[position + 1] = firstChild[position] + childStart[node + 1] - childStart[node]
        }
        for child in 1..<Int(firstChild[1]) { rootNext[Int(byte[child])] = Int32(child) }

        // Failure links in breadth-first order: a node's target is one step from its parent's target.
        fail = [Int32](repeating: 0, count: count)
        nextOutput = [Int32](repeating: 0, count: count)
        for node in 0..<count {
            for child in Int(firstChild[node])..<Int(firstChild[node + 1]) {
                let target = node == 0 ? 0 : step(fail[node], byte[child])
                fail[child] = target
                nextOutput[child] = pattern[Int(target)] >= 0 ? target : nextOutput[Int(target)]
            }
        }
    }

    /// Calls `body` with the id of every condition occurring in `text`, once per occurrence.
    @inline(__always)
    func forEachMatch(in text: FoldedText, _ body: (Int32) -> Void) {
        var state: Int32 = 0
        let bytes = text.utf8.span
        for index in bytes.indices {
            state = step(state, bytes[index])
            var out = pattern[Int(state)] >= 0 ? state : nextOutput[Int(state)]
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
            var child = Int(firstChild[Int(state)])
            let end = Int(firstChild[Int(state) + 1])
            while child < end {
                let b = self.byte[child]
                if b == byte { return Int32(child) }
                if b > byte { break }
                child += 1
            }
            state = fail[Int(state)]
        }
        return rootNext[Int(byte)]
    }
}
