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
    init(patterns: [(id: Int32, bytes: [UInt8])]) {
        // The trie, with children in small lists while it grows.
        var children: [[(byte: UInt8, node: Int32)]] = [[]]
        var ends: [Int32] = [-1]
        for (id, bytes) in patterns {
            var node: Int32 = 0
            for byte in bytes {
                if let next = children[Int(node)].first(where: { $0.byte == byte })?.node {
                    node = next
                } else {
                    let next = Int32(children.count)
                    children.append([])
                    ends.append(-1)
                    children[Int(node)].append((byte, next))
                    node = next
                }
            }
            ends[Int(node)] = id
        }
        let count = children.count

        // Breadth first, so that a node's failure target is finished before the node.
        var failure = [Int32](repeating: 0, count: count)
        var output = [Int32](repeating: 0, count: count)
        var queue: [Int32] = children[0].map(\.node)
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for (byte, child) in children[Int(node)] {
                var f = failure[Int(node)]
                var target: Int32 = 0
                while true {
                    if let t = children[Int(f)].first(where: { $0.byte == byte })?.node, t != child {
                        target = t
                        break
                    }
                    if f == 0 { break }
                    f = failure[Int(f)]
                }
                failure[Int(child)] = target
                output[Int(child)] = ends[Int(target)] >= 0 ? target : output[Int(target)]
                queue.append(child)
            }
        }

        // Flatten.
        var edgeStart = [Int32](repeating: 0, count: count + 1)
        var edgeByte: [UInt8] = [], edgeTarget: [Int32] = []
        edgeByte.reserveCapacity(count)
        edgeTarget.reserveCapacity(count)
        for node in 0..<count {
            edgeStart[node] = Int32(edgeByte.count)
            guard node != 0 else { continue }
            for (byte, child) in children[node].sorted(by: { $0.byte < $1.byte }) {
                edgeByte.append(byte)
                edgeTarget.append(child)
            }
        }
        edgeStart[count] = Int32(edgeByte.count)
        for (byte, child) in children[0] { rootNext[Int(byte)] = child }
        self.edgeStart = edgeStart
        self.edgeByte = edgeByte
        self.edgeTarget = edgeTarget
        self.fail = failure
        self.pattern = ends
        self.nextOutput = output
        self.firstOutput = (0..<count).map { ends[$0] >= 0 ? Int32($0) : output[$0] }
    }

    /// Calls `body` with the id of every condition occurring in `text`, once per occurrence.
    @inline(__always)
    func forEachMatch(in text: [UInt8], _ body: (Int32) -> Void) {
        var state: Int32 = 0
        for byte in text {
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
