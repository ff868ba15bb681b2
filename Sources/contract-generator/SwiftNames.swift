// How the contract's names become Swift names and types: the one place that decides them, so that
// the same XML always gives the same Swift.

enum SwiftNames {
    /// Words written in capitals inside a name (`app-id` → `appID`, `full-uris` → `fullURIs`).
    static let acronyms: [String: String] = ["id": "ID", "url": "URL", "uri": "URI", "uris": "URIs"]

    /// `app-id` → `appID`, `window-group` → `windowGroup`: a key or a value, as a Swift member.
    static func member(kebab name: String) -> String {
        let words = name.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        return words.enumerated().map { index, word in
            index == 0 ? word : acronyms[word] ?? capitalized(word)
        }.joined()
    }

    /// `content-types` → `ContentTypes`: a key, as the Swift type of its values.
    static func type(kebab name: String) -> String {
        let words = name.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        return words.map { acronyms[$0] ?? capitalized($0) }.joined()
    }

    /// `OpenURL` → `openURL`, `InvalidURI` → `invalidURI`, `URLThing` → `urlThing`: a D-Bus member
    /// or error name, as a Swift member. The leading capitals are lowered, but the last of several
    /// when a lower-case letter follows it (it starts the next word).
    static func member(upperCamel name: String) -> String {
        let characters = Array(name)
        var leading = 0
        while leading < characters.count, characters[leading].isUppercase { leading += 1 }
        if leading > 1, leading < characters.count, characters[leading].isLowercase { leading -= 1 }
        return String(characters[..<max(leading, 1)]).lowercased() + String(characters[max(leading, 1)...])
    }

    static func capitalized(_ word: String) -> String {
        word.prefix(1).uppercased() + word.dropFirst()
    }

    /// Whether `name` is a Swift identifier (ASCII: the contract's names are).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic && first.isASCII else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    /// Swift's keywords that cannot name a member without backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
    ]

    /// `name` as written in a declaration or after a dot.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 { escaped += "\\u{\(String(scalar.value, radix: 16))}" } else { escaped.unicodeScalars.append(scalar) }
            }
        }
        return "\"" + escaped + "\""
    }
}

/// A D-Bus signature read as types: what the `DBus` module maps each to (`BusValue`'s table).
enum SignatureTypes {
    /// The Swift type of `signature`, one complete type.
    /// - Throws: `SignatureError` for anything else: several types, none, an unknown or unsupported code.
    static func swiftType(of signature: String) throws(SignatureError) -> String {
        var rest = Substring(signature)
        let type = try complete(&rest)
        guard rest.isEmpty else { throw SignatureError("\"\(signature)\" holds more than one complete type") }
        return type
    }

    /// Whether `signature` is a sequence of complete types (an argument list's), and how many.
    static func count(of signature: String) throws(SignatureError) -> Int {
        var rest = Substring(signature)
        var count = 0
        while !rest.isEmpty {
            _ = try complete(&rest)
            count += 1
        }
        return count
    }

    /// The D-Bus type of each field of the structure `signature` (`(sa{sv})` → `s`, `a{sv}`).
    /// - Throws: `SignatureError` when `signature` is not one structure.
    static func fields(of signature: String) throws(SignatureError) -> [String] {
        _ = try swiftType(of: signature)
        guard signature.hasPrefix("(") else { throw SignatureError("\"\(signature)\" is no structure") }
        var rest = Substring(signature).dropFirst().dropLast()
        var fields: [String] = []
        while !rest.isEmpty {
            let start = rest.startIndex
            _ = try complete(&rest)
            fields.append(String(signature[start..<rest.startIndex]))
        }
        return fields
    }

    static let basic: [Character: String] = [
        "y": "UInt8", "b": "Bool", "n": "Int16", "q": "UInt16", "i": "Int32", "u": "UInt32", "x": "Int64",
        "t": "UInt64", "d": "Double", "s": "String", "o": "ObjectPath", "g": "Signature",
    ]

    private static func complete(_ rest: inout Substring) throws(SignatureError) -> String {
        guard let code = rest.popFirst() else { throw SignatureError("a type is missing") }
        if let type = basic[code] { return type }
        switch code {
        case "v": return "Variant"
        case "a":
            if rest.first == "{" {
                rest.removeFirst()
                guard let keyCode = rest.first, let key = basic[keyCode] else {
                    throw SignatureError("a dictionary's key must be a basic type")
                }
                rest.removeFirst()
                let value = try complete(&rest)
                guard rest.popFirst() == "}" else { throw SignatureError("a dictionary entry holds a key and one value") }
                return "[\(key): \(value)]"
            }
            return "[\(try complete(&rest))]"
        case "(":
            var fields: [String] = []
            while rest.first != ")" {
                guard !rest.isEmpty else { throw SignatureError("a structure is not closed") }
                fields.append(try complete(&rest))
            }
            rest.removeFirst()
            guard !fields.isEmpty else { throw SignatureError("a structure has no fields") }
            return "Structure<\(fields.joined(separator: ", "))>"
        case "h": throw SignatureError("unix file descriptors (h) are not supported by the DBus module")
        default: throw SignatureError("'\(code)' is no D-Bus type code")
        }
    }
}

struct SignatureError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
