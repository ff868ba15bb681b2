import FoundationEssentials

/// A JSON document as JSONDecoder reads it, to be interpreted key by key with the path of each
/// value at hand, so that a refusal can say where the problem is.
enum JSONValue: Decodable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        // JSONDecoder says what a value is only by throwing when it is not what was asked: each
        // wrong guess costs an error (most of the time a file takes to load). So the kind the
        // applinks format puts at this place is asked first; any other kind is still read.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
            return
        }
        func attempt(_ kind: Kind) -> JSONValue? {
            switch kind {
            case .string: (try? container.decode(String.self)).map { .string($0) }
            case .object: (try? container.decode([String: JSONValue].self)).map { .object($0) }
            case .bool: (try? container.decode(Bool.self)).map { .bool($0) }
            case .array: (try? container.decode([JSONValue].self)).map { .array($0) }
            case .number: (try? container.decode(Double.self)).map { .number($0) }
            }
        }
        let likely = Self.likelyKind(at: decoder.codingPath)
        if let value = attempt(likely) {
            self = value
            return
        }
        for kind in Kind.allCases where kind != likely {
            if let value = attempt(kind) {
                self = value
                return
            }
        }
        // What is left: a number beyond Double's range, or a string that is not valid Unicode.
        throw DecodingError.dataCorrupted(.init(
            codingPath: decoder.codingPath, debugDescription: "a number out of range or a string that is not valid Unicode"))
    }

    /// The kinds in the order they are guessed when the place says nothing: the most common first.
    private enum Kind: CaseIterable {
        case string, object, bool, array, number
    }

    /// What the applinks format holds at this place.
    private static func likelyKind(at path: [any CodingKey]) -> Kind {
        guard let last = path.last else { return .object }
        let parent = path.count > 1 ? path[path.count - 2].stringValue : ""
        if last.intValue != nil { return parent == "details" || parent == "components" ? .object : .string }
        if parent == "substitutionVariables" { return .array }
        switch last.stringValue {
        case "applinks", "defaults", "substitutionVariables", "webcredentials", "appclips", "activitycontinuation": return .object
        case "details", "components", "appIDs", "paths", "apps": return .array
        case "exclude", "caseSensitive", "percentEncoded": return .bool
        default: return .string
        }
    }

    /// What the value is, as a refusal names it ("found a number").
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// The place of a value in the document, written as JSONPath: `$.applinks.details[1]["?"]`.
struct JSONPath: Sendable, CustomStringConvertible {
    private(set) var description = "$"

    func appending(_ key: String) -> JSONPath {
        var path = self
        let isIdentifier = !key.isEmpty && key.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        } && !(key.utf8.first! >= UInt8(ascii: "0") && key.utf8.first! <= UInt8(ascii: "9"))
        if isIdentifier {
            path.description += "." + key
        } else {
            var quoted = ""
            for scalar in key.unicodeScalars {
                switch scalar {
                case "\"": quoted += "\\\""
                case "\\": quoted += "\\\\"
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            path.description += "[\"" + quoted + "\"]"
        }
        return path
    }

    func appending(_ index: Int) -> JSONPath {
        var path = self
        path.description += "[\(index)]"
        return path
    }

    /// A decoding error's coding path, written the same way.
    init(_ codingPath: [any CodingKey] = []) {
        for key in codingPath {
            self = key.intValue.map { appending($0) } ?? appending(key.stringValue)
        }
    }
}
