/// Turns pattern text into `Pattern`s for one file: its substitution variables over the predefined
/// ones, each variable's values compiled once per spelling (cased or folded, encoded or not).
struct PatternCompiler {
    /// How a part of the link is compared: encoded or decoded, and case-sensitively or folded.
    struct Spelling: Hashable, Sendable {
        var caseSensitive = true
        var percentEncoded = true
    }

    /// A variable a pattern names that neither the file nor Apple defines.
    struct UndefinedVariable: Error {
        let name: String
    }

    /// The file's `substitutionVariables`; a name Apple predefines is the file's to redefine (the
    /// more specific definition wins, as with defaults).
    private let fileVariables: [String: [String]]
    /// False for legacy `paths`, which came before variables: there `$(` is text.
    private let expandsVariables: Bool
    private var choices: [String: [Spelling: Choice]] = [:]
    /// The values of the file's own variables, summed over every reference compiled so far.
    private(set) var expandedValues = 0

    init(fileVariables: [String: [String]], expandsVariables: Bool = true) {
        self.fileVariables = fileVariables
        self.expandsVariables = expandsVariables
    }

    /// Apple's predefined variables compiled once per process in each spelling: `$(lang)` has 615
    /// values, which every file naming it would otherwise compile again.
    private static let predefinedChoices: [Spelling: [String: Choice]] = {
        var table: [Spelling: [String: Choice]] = [:]
        for caseSensitive in [true, false] {
            for percentEncoded in [true, false] {
                let spelling = Spelling(caseSensitive: caseSensitive, percentEncoded: percentEncoded)
                table[spelling] = predefined.mapValues { values in Choice(name: "", alternatives: values.map { alternative($0, spelling) }) }
            }
        }
        return table
    }()

    /// Apple's predefined variables (applinks.SubstitutionVariables).
    static let predefined: [String: [String]] = {
        let upper = (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(Unicode.Scalar($0)) }
        let lower = upper.map { $0.lowercased() }
        let digits = (0...9).map { String($0) }
        return [
            "alpha": upper + lower,
            "upper": upper,
            "lower": lower,
            "alnum": upper + lower + digits,
            "digit": digits,
            "xdigit": digits + ["A", "B", "C", "D", "E", "F", "a", "b", "c", "d", "e", "f"],
            "region": ISOCodes.regions,
            "lang": ISOCodes.languages,
        ]
    }()

    /// A path pattern as Apple's matcher reads it: a leading `/` added when the pattern starts
    /// with a literal character (`buy/*` is `/buy/*`), a doubled leading slash made one, and a
    /// trailing slash removed (`/buy/` is `/buy`), as the link's path is (`LinkSubject.path`).
    static func pathForm(_ source: String) -> String {
        var text = Substring(source)
        if let first = text.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*"), first != UInt8(ascii: "?"),
            first != UInt8(ascii: "$")
        {
            return pathForm("/" + source)
        }
        // By bytes: a slash may begin or end a grapheme cluster with its neighbour.
        while text.utf8.starts(with: "//".utf8) { text = text[text.utf8.index(after: text.utf8.startIndex)...] }
        if text.utf8.count > 1, text.utf8.last == UInt8(ascii: "/") { text = text[..<text.utf8.index(before: text.utf8.endIndex)] }
        return String(text)
    }

    /// - Throws: `UndefinedVariable` for a `$(name)` defined nowhere.
    mutating func compile(_ source: String, _ spelling: Spelling) throws(UndefinedVariable) -> Pattern {
        // Wildcards and `$(`…`)` are ASCII, so the text is scanned as bytes; runs between them are literal.
        let bytes = source.utf8.span
        var elements: [Element] = []
        var literalStart = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "$") where expandsVariables && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "("):
                var close = index + 2
                while close < bytes.count, bytes[close] != UInt8(ascii: ")") { close += 1 }
                guard close < bytes.count else {
                    index += 1
                    continue
                }
                Self.literal(source, literalStart, index, into: &elements, spelling)
                let name = String(decoding: source.utf8.dropFirst(index + 2).prefix(close - index - 2), as: UTF8.self)
                elements.append(.choice(try choice(name, spelling)))
                index = close + 1
                literalStart = index
            case UInt8(ascii: "*"):
                Self.literal(source, literalStart, index, into: &elements, spelling)
                if elements.last != .star { elements.append(.star) }
                index += 1
                literalStart = index
            case UInt8(ascii: "?"):
                Self.literal(source, literalStart, index, into: &elements, spelling)
                elements.append(.any)
                index += 1
                literalStart = index
            default:
                index += 1
            }
        }
        Self.literal(source, literalStart, bytes.count, into: &elements, spelling)
        return Pattern(source: source, elements: elements)
    }

    /// A variable's values as alternatives; values hold wildcards but no variables (Apple's rule),
    /// so a `$(` inside one is literal text.
    private mutating func choice(_ name: String, _ spelling: Spelling) throws(UndefinedVariable) -> Choice {
        if let values = fileVariables[name] { expandedValues += values.count }
        if let compiled = choices[name]?[spelling] { return compiled }
        guard let values = fileVariables[name] else {
            guard let predefined = Self.predefinedChoices[spelling]?[name] else { throw UndefinedVariable(name: name) }
            return Choice(name: name, alternatives: predefined.alternatives, index: predefined)
        }
        let compiled = Choice(name: name, alternatives: values.map { Self.alternative($0, spelling) })
        choices[name, default: [:]][spelling] = compiled
        return compiled
    }

    /// A value of a variable: wildcards and literal text, no variables (Apple's rule).
    private static func alternative(_ value: String, _ spelling: Spelling) -> [Element] {
        var plain = PatternCompiler(fileVariables: [:], expandsVariables: false)
        return (try? plain.compile(value, spelling))?.elements ?? []
    }

    /// The literal bytes from `start` to `end` of the source, in the link's spelling: encoded as
    /// a link is (so `/café` finds `/caf%C3%A9`), then lower-cased when folded (the link's part is
    /// lower-cased alike); merged into a literal before them.
    private static func literal(_ source: String, _ start: Int, _ end: Int, into elements: inout [Element], _ spelling: Spelling) {
        guard start < end else { return }
        let slice = source.utf8.dropFirst(start).prefix(end - start)
        var bytes: [UInt8]
        if spelling.caseSensitive && slice.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }) {
            bytes = Array(slice)  // nothing to encode or fold: most patterns
        } else {
            let text = String(decoding: slice, as: UTF8.self)
            let spelled = spelling.percentEncoded ? PercentEncoding.normalized(text) : text
            bytes = Array((spelling.caseSensitive ? spelled : spelled.lowercased()).utf8)
        }
        if case .literal(let previous)? = elements.last {
            bytes = previous + bytes
            elements[elements.count - 1] = .literal(bytes)
        } else {
            elements.append(.literal(bytes))
        }
    }
}
