// One file: the pattern, its elements, and the two matchers share the step count that bounds their
// work and the UTF-8 helpers; they change together when the pattern language does.

/// One pattern of an association file, compiled once at load: `*` matches zero or more characters
/// (across `/`), `?` exactly one, `?*` one or more, `$(name)` any one of a substitution variable's
/// values; everything else stands for itself.
///
/// Matching is bounded, never backtracking: a pattern without variables is split at its stars and
/// each piece placed at its leftmost fit, which is optimal for a glob (O(text × longest piece)); a
/// pattern with variables runs over the set of text positions reached so far (O(text × pattern)).
/// Characters are Unicode scalars; the text is scanned as UTF-8 bytes. A class: components are
/// walked on every link, and copying a struct of arrays would retain each of them.
final class Pattern: Sendable {
    /// The pattern as the file wrote it.
    let source: String
    /// What it was compiled to (kept for variables' values, which are patterns of their own).
    let elements: [Element]
    private let form: Form
    /// The literal text every match starts with (empty when the pattern starts with a wildcard).
    let literalPrefix: [UInt8]
    /// Whether it ends with `/*`: as a path pattern, it then also matches the path without that
    /// slash (`/buy/*` matches `/buy`), as Apple's matcher does.
    let endsInDirectory: Bool

    private enum Form: Sendable {
        /// `*`, the default of every part.
        case anything
        case exactly([UInt8])
        /// A literal start, then `*`.
        case prefix([UInt8])
        case glob(Glob)
        /// With substitution variables; the literal text it must start and end with is checked first.
        case general([Element], prefix: [UInt8], suffix: [UInt8])
        /// Names a variable the file does not define: matches nothing.
        case nothing
    }

    /// A pattern with the elements given; `forceGeneral` runs even a plain glob through the
    /// position-set matcher (tests compare the two).
    init(source: String, elements: [Element], forceGeneral: Bool = false) {
        self.source = source
        self.elements = elements
        if case .literal(let bytes)? = elements.first { literalPrefix = bytes } else { literalPrefix = [] }
        if elements.count >= 2, elements.last == .star, case .literal(let bytes) = elements[elements.count - 2] {
            endsInDirectory = bytes.last == UInt8(ascii: "/")
        } else {
            endsInDirectory = false
        }
        let hasChoice = elements.contains { if case .choice = $0 { true } else { false } }
        if hasChoice || forceGeneral {
            var prefix: [UInt8] = [], suffix: [UInt8] = []
            if case .literal(let bytes)? = elements.first { prefix = bytes }
            if elements.count > 1, case .literal(let bytes)? = elements.last { suffix = bytes }
            form = .general(elements, prefix: prefix, suffix: suffix)
        } else if elements == [.star] {
            form = .anything
        } else if elements.isEmpty {
            form = .exactly([])
        } else if elements.count == 1, case .literal(let bytes) = elements[0] {
            form = .exactly(bytes)
        } else if elements.count == 2, case .literal(let bytes) = elements[0], elements[1] == .star {
            form = .prefix(bytes)
        } else {
            form = .glob(Glob(elements))
        }
    }

    /// A pattern that matches nothing (it names an undefined variable).
    init(unmatchable source: String) {
        self.source = source
        elements = []
        form = .nothing
        literalPrefix = []
        endsInDirectory = false
    }

    /// `matches` for a link's path as `LinkSubject.path` gives it (its trailing slash removed):
    /// a pattern ending with `/*` also matches it with the slash back.
    func matches(path: String, steps: inout Int, budget: Int = .max) -> Bool {
        if matches(path, steps: &steps, budget: budget) { return true }
        return endsInDirectory && steps <= budget && matches(path + "/", steps: &steps, budget: budget)
    }

    /// Whether the pattern matches everything, so that matching can skip it.
    var matchesEverything: Bool {
        if case .anything = form { true } else { false }
    }

    func matches(_ text: String) -> Bool {
        var steps = 0
        return matches(text, steps: &steps)
    }

    /// - Parameters:
    ///   - steps: incremented once per byte compared or position tried, so that tests can show the
    ///     work is bounded without timing it.
    ///   - budget: once `steps` passes it, matching stops with false; the caller tells that from a
    ///     mismatch by `steps > budget`. It may pass it by one literal's length.
    func matches(_ text: String, steps: inout Int, budget: Int = .max) -> Bool {
        let bytes = text.utf8.span
        switch form {
        case .anything:
            return true
        case .nothing:
            return false
        case .exactly(let literal):
            return bytes.count == literal.count && Self.equal(literal, bytes, at: 0, steps: &steps)
        case .prefix(let literal):
            return bytes.count >= literal.count && Self.equal(literal, bytes, at: 0, steps: &steps)
        case .glob(let glob):
            return glob.matches(bytes, steps: &steps, budget: budget)
        case .general(let elements, let prefix, let suffix):
            guard bytes.count >= prefix.count + suffix.count, Self.equal(prefix, bytes, at: 0, steps: &steps),
                Self.equal(suffix, bytes, at: bytes.count - suffix.count, steps: &steps)
            else { return false }
            return PositionSet.matches(elements, bytes, steps: &steps, budget: budget)
        }
    }

    static func equal(_ literal: [UInt8], _ bytes: Span<UInt8>, at start: Int, steps: inout Int) -> Bool {
        guard start + literal.count <= bytes.count else { return false }
        for offset in literal.indices {
            steps += 1
            if bytes[start + offset] != literal[offset] { return false }
        }
        return true
    }

    /// The bytes of the scalar that starts with `lead`.
    static func scalarLength(_ lead: UInt8) -> Int {
        lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    static func isBoundary(_ byte: UInt8) -> Bool { byte & 0xC0 != 0x80 }
}

/// A compiled pattern's parts. Literal runs are merged, and stars never follow one another.
enum Element: Sendable, Equatable {
    case literal([UInt8])
    /// `?`: exactly one scalar.
    case any
    /// `*`: zero or more scalars.
    case star
    /// A substitution variable: any one of its values, each a sequence of the three above.
    case choice(Choice)
}

/// The values of one substitution variable, indexed by their first byte (`$(lang)` has 615).
struct Choice: Sendable, Equatable {
    let name: String
    let alternatives: [[Element]]
    /// Alternatives that start with a literal, by that literal's first byte.
    let byFirstByte: [UInt8: [Int]]
    /// Alternatives that start with a wildcard, or are empty.
    let unindexed: [Int]

    /// The same alternatives under another name, sharing an index already built.
    init(name: String, alternatives: [[Element]], index other: Choice) {
        self.name = name
        self.alternatives = alternatives
        byFirstByte = other.byFirstByte
        unindexed = other.unindexed
    }

    init(name: String, alternatives: [[Element]]) {
        self.name = name
        self.alternatives = alternatives
        var byFirstByte: [UInt8: [Int]] = [:]
        var unindexed: [Int] = []
        for (index, alternative) in alternatives.enumerated() {
            if case .literal(let bytes)? = alternative.first, let first = bytes.first {
                byFirstByte[first, default: []].append(index)
            } else {
                unindexed.append(index)
            }
        }
        self.byFirstByte = byFirstByte
        self.unindexed = unindexed
    }

    static func == (a: Choice, b: Choice) -> Bool { a.name == b.name && a.alternatives == b.alternatives }
}

/// A pattern without variables, as the pieces between its stars.
private struct Glob: Sendable {
    /// A run of literals and `?` between two stars.
    struct Piece: Sendable {
        var elements: [Element] = []
        /// How many scalars it matches: its `?`s and its literal scalars.
        var scalars = 0
    }

    /// First piece (anchored at the start), middle pieces (anywhere, in order), last piece
    /// (anchored at the end). With no star there is one piece, anchored at both ends.
    let pieces: [Piece]
    let hasStar: Bool

    init(_ elements: [Element]) {
        var pieces = [Piece()]
        for element in elements {
            switch element {
            case .star:
                pieces.append(Piece())
            case .literal(let bytes):
                pieces[pieces.count - 1].elements.append(element)
                pieces[pieces.count - 1].scalars += bytes.count { Pattern.isBoundary($0) }
            case .any:
                pieces[pieces.count - 1].elements.append(element)
                pieces[pieces.count - 1].scalars += 1
            case .choice:
                preconditionFailure("a glob has no variables")
            }
        }
        self.pieces = pieces
        hasStar = pieces.count > 1
    }

    func matches(_ bytes: Span<UInt8>, steps: inout Int, budget: Int) -> Bool {
        let end = bytes.count
        guard let afterFirst = Self.fit(pieces[0], bytes, at: 0, limit: end, steps: &steps) else { return false }
        guard hasStar else { return afterFirst == end }
        // The last piece's start is fixed: its scalar count back from the end.
        let last = pieces[pieces.count - 1]
        var lastStart = end
        for _ in 0..<last.scalars {
            guard lastStart > afterFirst else { return false }
            lastStart -= 1
            while lastStart > afterFirst, !Pattern.isBoundary(bytes[lastStart]) { lastStart -= 1 }
        }
        guard Self.fit(last, bytes, at: lastStart, limit: end, steps: &steps) == end else { return false }
        // Each middle piece at its leftmost fit: leaving the most room to the pieces after it.
        var position = afterFirst
        for piece in pieces.dropFirst().dropLast() {
            var found = false
            while position < lastStart {
                steps += 1
                if steps > budget { return false }
                if let after = Self.fit(piece, bytes, at: position, limit: lastStart, steps: &steps) {
                    position = after
                    found = true
                    break
                }
                position += Pattern.scalarLength(bytes[position])
            }
            if !found { return false }
        }
        return true
    }

    /// Where the piece ends when it starts at `start` and may not pass `limit`, or nil.
    private static func fit(_ piece: Piece, _ bytes: Span<UInt8>, at start: Int, limit: Int, steps: inout Int) -> Int? {
        var position = start
        for element in piece.elements {
            switch element {
            case .literal(let literal):
                guard position + literal.count <= limit, Pattern.equal(literal, bytes, at: position, steps: &steps) else {
                    return nil
                }
                position += literal.count
            case .any:
                guard position < limit else { return nil }
                steps += 1
                position += Pattern.scalarLength(bytes[position])
                if position > limit { return nil }
            case .star, .choice:
                preconditionFailure("a piece has neither stars nor variables")
            }
        }
        return position
    }
}

/// Matching by the set of text positions each element can end at: the general matcher, for
/// patterns with substitution variables, whose values may hold wildcards of their own.
private struct PositionSet {
    /// Positions 0 to 63 in one word, so that most links' paths need no allocation; the rest after.
    private var low: UInt64 = 0
    private var high: [UInt64]
    let count: Int

    init(count: Int) {
        self.count = count
        high = count > 64 ? Array(repeating: 0, count: (count - 64 + 63) / 64) : []
    }

    mutating func insert(_ position: Int) {
        if position < 64 { low |= 1 << UInt64(position) } else { high[(position - 64) >> 6] |= 1 << UInt64(position & 63) }
    }

    func contains(_ position: Int) -> Bool {
        position < 64 ? low & (1 << UInt64(position)) != 0 : high[(position - 64) >> 6] & (1 << UInt64(position & 63)) != 0
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    /// The first position at or after `start`, or nil.
    func first(from start: Int) -> Int? {
        var word = start >> 6
        var bits = start < 64 ? low : high[word - 1]
        bits &= ~0 << UInt64(start & 63)
        while true {
            if bits != 0 { return word << 6 + bits.trailingZeroBitCount }
            word += 1
            guard word - 1 < high.count else { return nil }
            bits = high[word - 1]
        }
    }

    mutating func formUnion(_ other: PositionSet) {
        low |= other.low
        for index in high.indices { high[index] |= other.high[index] }
    }

    static func matches(_ elements: [Element], _ bytes: Span<UInt8>, steps: inout Int, budget: Int) -> Bool {
        var start = PositionSet(count: bytes.count + 1)
        start.insert(0)
        let reached = advance(start, over: elements, bytes, steps: &steps, budget: budget)
        return steps <= budget && reached.contains(bytes.count)
    }

    /// The positions reached from `set` by matching `elements` in turn.
    private static func advance(
        _ set: PositionSet, over elements: [Element], _ bytes: Span<UInt8>, steps: inout Int, budget: Int
    ) -> PositionSet {
        var current = set
        for element in elements {
            // Over budget: what is reached no longer matters, the caller sees `steps > budget`.
            guard steps <= budget, let first = current.first(from: 0) else { return current }
            steps += current.count >> 6  // the words of each set made and joined
            var next = PositionSet(count: current.count)
            switch element {
            case .literal(let literal):
                var position: Int? = first
                while let at = position, steps <= budget {
                    steps += 1
                    if Pattern.equal(literal, bytes, at: at, steps: &steps) { next.insert(at + literal.count) }
                    position = at + 1 < current.count ? current.first(from: at + 1) : nil
                }
            case .any:
                var position: Int? = first
                while let at = position, at < bytes.count, steps <= budget {
                    steps += 1
                    next.insert(at + Pattern.scalarLength(bytes[at]))
                    position = at + 1 < current.count ? current.first(from: at + 1) : nil
                }
            case .star:
                // Every scalar boundary from the first position reached onwards.
                for position in first...bytes.count where position == bytes.count || Pattern.isBoundary(bytes[position]) {
                    steps += 1
                    next.insert(position)
                }
            case .choice(let choice):
                for index in choice.unindexed where steps <= budget {
                    next.formUnion(advance(current, over: choice.alternatives[index], bytes, steps: &steps, budget: budget))
                }
                var position: Int? = first
                while let at = position, at < bytes.count, steps <= budget {
                    steps += 1
                    for index in choice.byFirstByte[bytes[at]] ?? [] where steps <= budget {
                        let alternative = choice.alternatives[index]
                        if alternative.count == 1, case .literal(let literal) = alternative[0] {
                            if Pattern.equal(literal, bytes, at: at, steps: &steps) { next.insert(at + literal.count) }
                        } else {
                            var single = PositionSet(count: current.count)
                            single.insert(at)
                            next.formUnion(advance(single, over: alternative, bytes, steps: &steps, budget: budget))
                        }
                    }
                    position = at + 1 < current.count ? current.first(from: at + 1) : nil
                }
            }
            current = next
        }
        return current
    }
}
