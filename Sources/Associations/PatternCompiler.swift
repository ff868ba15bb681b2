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

    /// - Throws: `UndefinedVariable` for a `$(name)` defined nowhere.
    mutating func compile(_ source: String, _ spelling: Spelling) throws(UndefinedVariable) -> Pattern {
        var elements: [Element] = []
        var literal = ""
        let scalars = Array(source.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if expandsVariables, scalar == "$", index + 1 < scalars.count, scalars[index + 1] == "(",
                let close = scalars[(index + 2)...].firstIndex(of: ")")
            {
                let name = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
                Self.flush(&literal, into: &elements, spelling)
                elements.append(.choice(try choice(name, spelling)))
                index = close + 1
                continue
            }
            switch scalar {
            case "*":
                Self.flush(&literal, into: &elements, spelling)
                if elements.last != .star { elements.append(.star) }
            case "?":
                Self.flush(&literal, into: &elements, spelling)
                elements.append(.any)
            default:
                literal.unicodeScalars.append(scalar)
            }
            index += 1
        }
        Self.flush(&literal, into: &elements, spelling)
        return Pattern(source: source, elements: elements)
    }

    /// A variable's values as alternatives; values hold wildcards but no variables (Apple's rule),
    /// so a `$(` inside one is literal text.
    private mutating func choice(_ name: String, _ spelling: Spelling) throws(UndefinedVariable) -> Choice {
        if let compiled = choices[name]?[spelling] { return compiled }
        guard let values = fileVariables[name] else {
            guard let predefined = Self.predefinedChoices[spelling]?[name] else { throw UndefinedVariable(name: name) }
            return Choice(name: name, alternatives: predefined.alternatives, index: predefined)
        }
        let compiled = Choice(name: name, alternatives: values.map { Self.alternative($0, spelling) })
        choices[name, default: [:]][spelling] = compiled
        return compiled
    }

    private static func alternative(_ value: String, _ spelling: Spelling) -> [Element] {
        var elements: [Element] = []
        var literal = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "*":
                flush(&literal, into: &elements, spelling)
                if elements.last != .star { elements.append(.star) }
            case "?":
                flush(&literal, into: &elements, spelling)
                elements.append(.any)
            default:
                literal.unicodeScalars.append(scalar)
            }
        }
        flush(&literal, into: &elements, spelling)
        return elements
    }

    /// Literal text in the link's spelling: encoded as a link is (so `/café` finds `/caf%C3%A9`),
    /// then lower-cased when folded (the link's part is lower-cased alike).
    private static func flush(_ literal: inout String, into elements: inout [Element], _ spelling: Spelling) {
        guard !literal.isEmpty else { return }
        var text = spelling.percentEncoded ? PercentEncoding.normalized(literal) : literal
        if !spelling.caseSensitive { text = text.lowercased() }
        if case .literal(let previous)? = elements.last {
            elements[elements.count - 1] = .literal(previous + Array(text.utf8))
        } else {
            elements.append(.literal(Array(text.utf8)))
        }
        literal = ""
    }
}
