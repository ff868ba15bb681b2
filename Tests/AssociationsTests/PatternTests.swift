@testable import Associations
import Testing

/// Wildcards, and the bound on the work a pattern does, checked by counting steps, not by time.
@Suite("Patterns")
struct PatternTests {
    func pattern(_ source: String, general: Bool = false, _ spelling: PatternCompiler.Spelling = .init()) throws -> Pattern {
        guard !general else {
            return Pattern(source: source, elements: Self.elements(source, encoded: spelling.percentEncoded), forceGeneral: true)
        }
        var compiler = PatternCompiler(fileVariables: ["v": ["x", "y*z", "?"]])
        return try compiler.compile(source, spelling)
    }

    /// A pattern's elements built here, for a copy that takes the general matcher.
    static func elements(_ source: String, encoded: Bool) -> [Element] {
        var elements: [Element] = []
        for scalar in source.unicodeScalars {
            switch scalar {
            case "*": if elements.last != .star { elements.append(.star) }
            case "?": elements.append(.any)
            default:
                let text = encoded ? PercentEncoding.normalized(String(scalar)) : String(scalar)
                if case .literal(let previous)? = elements.last {
                    elements[elements.count - 1] = .literal(previous + Array(text.utf8))
                } else {
                    elements.append(.literal(Array(text.utf8)))
                }
            }
        }
        return elements
    }

    @Test("* matches zero or more characters, across /", arguments: [false, true])
    func star(general: Bool) throws {
        let buy = try pattern("/buy/*", general: general)
        #expect(buy.matches("/buy/"))
        #expect(buy.matches("/buy/a/b/c"))
        #expect(!buy.matches("/bu"))
        #expect(!buy.matches("/sell/buy/x"))
        let middle = try pattern("/a*/c", general: general)
        #expect(middle.matches("/a/c"))
        #expect(middle.matches("/ab/x/y/c"))
        #expect(!middle.matches("/ab/x/y/cd"))
    }

    @Test("? matches exactly one character, a whole scalar in UTF-8", arguments: [false, true])
    func one(general: Bool) throws {
        let four = try pattern("????", general: general)
        #expect(four.matches("1234"))
        #expect(!four.matches("123"))
        #expect(!four.matches("12345"))
        // Decoded text (percentEncoded false): é is one character, two bytes.
        let decoded = try pattern("caf?", general: general, .init(percentEncoded: false))
        #expect(decoded.matches("café"))
        #expect(!decoded.matches("cafée"))
    }

    @Test("?* matches one or more characters", arguments: [false, true])
    func oneOrMore(general: Bool) throws {
        let some = try pattern("/sourdough/?*", general: general)
        #expect(some.matches("/sourdough/x"))
        #expect(some.matches("/sourdough/rye/loaf"))
        #expect(!some.matches("/sourdough/"))
    }

    @Test("with no wildcard the whole text must be the pattern", arguments: [false, true])
    func literal(general: Bool) throws {
        let news = try pattern("/wwdc/news/", general: general)
        #expect(news.matches("/wwdc/news/"))
        #expect(!news.matches("/wwdc/news"))
        #expect(!news.matches("/wwdc/news/x"))
        #expect(!news.matches("x/wwdc/news/"))
    }

    @Test("a variable's values may hold wildcards")
    func variableWithWildcards() throws {
        let p = try pattern("/$(v)/")
        #expect(p.matches("/x/"))
        #expect(p.matches("/yz/"))
        #expect(p.matches("/y/any/thing/z/"))
        #expect(p.matches("/q/"))  // the value "?"
        #expect(!p.matches("/qq/"))
        #expect(!p.matches("//"))
    }

    /// `*a` 3,000 times against 2,999 `a`s: a backtracking matcher tries every way to share the
    /// `a`s among the stars (more than 2^2999) before it fails; this one places each piece once.
    @Test("thousands of stars against a long path: work linear in the text and the pattern")
    func thousandsOfStars() throws {
        let stars = String(repeating: "*a", count: 3000) + "*"
        let shortText = "/" + String(repeating: "a", count: 2999)
        let longText = "/" + String(repeating: "a", count: 3000)
        for general in [false, true] {
            let p = try pattern(stars, general: general)
            var steps = 0
            #expect(!p.matches(shortText, steps: &steps))
            let bound = general ? 3 * (stars.utf8.count + 1) * (shortText.utf8.count + 1) : 4 * (stars.utf8.count + shortText.utf8.count)
            #expect(steps <= bound, "general: \(general), steps: \(steps)")
            steps = 0
            #expect(p.matches(longText, steps: &steps))
            #expect(steps <= bound, "general: \(general), steps: \(steps)")
        }
        // The glob matcher's work does not grow with the product of the two lengths.
        let glob = try pattern(stars)
        var steps = 0
        _ = glob.matches(shortText, steps: &steps)
        #expect(steps < 20_000)
    }

    @Test("stars separated by ? and long literal pieces stay bounded")
    func adversarialPieces() throws {
        // Each piece almost fits at every position: aaaa…b against aaaa…a.
        let piece = String(repeating: "a", count: 50) + "b"
        let p = try pattern(String(repeating: "*" + piece, count: 40) + "*")
        let text = String(repeating: "a", count: 5000)
        var steps = 0
        #expect(!p.matches(text, steps: &steps))
        // Bound: every start position tried once per piece it can start, each at most a piece long.
        #expect(steps <= text.utf8.count * (piece.utf8.count + 1) + 100)
    }

    /// Every matcher against a plain dynamic-programming reference, on small random cases.
    @Test("the glob and the general matcher agree with a reference on 3,000 random cases")
    func agreesWithReference() throws {
        var random = SplitMix(state: 16)
        let alphabet: [Character] = ["a", "b", "/", "é"]
        for _ in 0..<3000 {
            let source = String((0..<Int.random(in: 0...7, using: &random)).map { _ in
                (alphabet + ["*", "?", "*"]).randomElement(using: &random)!
            })
            let text = String((0..<Int.random(in: 0...9, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let expected = Self.reference(Array(source), Array(text))
            let spelling = PatternCompiler.Spelling(percentEncoded: false)
            var compiler = PatternCompiler(fileVariables: [:])
            let glob = try compiler.compile(source, spelling)
            let general = Pattern(source: source, elements: Self.elements(source, encoded: false), forceGeneral: true)
            #expect(glob.matches(text) == expected, "\(source) against \(text)")
            #expect(general.matches(text) == expected, "\(source) against \(text), general")
        }
    }

    /// Glob matching by table: `table[i][j]` says whether pattern[i...] matches text[j...].
    /// Files check the first 8 bytes of a component's literal start before its pattern: that check
    /// must never turn away a link the pattern matches (short paths, long literal starts, case).
    @Test("a component's path prefix check agrees with its pattern on 3,000 random cases")
    func prefixCheckAgrees() throws {
        var random = SplitMix(state: 61)
        let alphabet: [Character] = ["a", "b", "/", "A"]
        for _ in 0..<3000 {
            let literal = String((0..<Int.random(in: 0...11, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let tail = String((0..<Int.random(in: 0...3, using: &random)).map { _ in (alphabet + ["*", "?"]).randomElement(using: &random)! })
            let source = "/" + literal + tail
            let path = "/" + String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let caseSensitive = Bool.random(using: &random)
            let file = try associationFile(
                #"{"applinks": {"details": [{"appIDs": ["A"], "components": [{"/": "\#(source)", "caseSensitive": \#(caseSensitive)}]}]}}"#)
            // Compared as Apple's matcher compares paths (see AppleSlashTests): the pattern and the
            // path without a trailing slash, and a pattern ending with /* also against path + "/".
            let (pattern, text) = (Self.appleForm(source), Self.appleForm(path))
            let fold = { (text: String) in caseSensitive ? text : text.lowercased() }
            let expected = Self.reference(Array(fold(pattern)), Array(fold(text)))
                || (pattern.hasSuffix("/*") && Self.reference(Array(fold(pattern)), Array(fold(text + "/"))))
            #expect(try apps(file, "https://x.example" + path) == (expected ? ["A"] : []), "\(source) against \(path)")
        }
    }

    /// One run of leading slashes made one, a trailing slash removed (not the root's).
    static func appleForm(_ text: String) -> String {
        var form = Substring(text)
        while form.hasPrefix("//") { form = form.dropFirst() }
        if form.count > 1, form.hasSuffix("/") { form = form.dropLast() }
        return String(form)
    }

    static func reference(_ pattern: [Character], _ text: [Character]) -> Bool {
        var table = Array(repeating: Array(repeating: false, count: text.count + 1), count: pattern.count + 1)
        table[pattern.count][text.count] = true
        for i in stride(from: pattern.count - 1, through: 0, by: -1) {
            for j in stride(from: text.count, through: 0, by: -1) {
                switch pattern[i] {
                case "*": table[i][j] = table[i + 1][j] || (j < text.count && table[i][j + 1])
                case "?": table[i][j] = j < text.count && table[i + 1][j + 1]
                default: table[i][j] = j < text.count && text[j] == pattern[i] && table[i + 1][j + 1]
                }
            }
        }
        return table[0][0]
    }
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
