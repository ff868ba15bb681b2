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

    /// The document: an object is expected.
    init(from decoder: any Decoder) throws {
        try self.init(decoder, expecting: .object)
    }

    /// JSONDecoder says what a value is only by throwing when it is not what was asked, and each
    /// wrong guess costs an error (most of the time a file took to load). So each value is asked
    /// first for what the applinks format puts at its place, passed down as the type decoded;
    /// any other kind is still read.
    init(_ decoder: any Decoder, expecting expected: Expectation) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
            return
        }
        // A wrong guess is a type mismatch here; any other error comes from inside a member and
        // is passed on, never retried under another guess (which would cost 2^depth).
        func attempt(_ expectation: Expectation) throws -> JSONValue? {
            do {
                return switch expectation {
                case .string: .string(try container.decode(String.self))
                case .bool: .bool(try container.decode(Bool.self))
                case .object: .object(try container.decode(Fields.self).fields)
                case .variables: .object(try container.decode(VariableFields.self).fields)
                case .objects: .array(try container.decode([ExpectedObject].self).map(\.value))
                case .strings: .array(try container.decode([ExpectedString].self).map(\.value))
                }
            } catch DecodingError.typeMismatch {
                return nil
            }
        }
        if let value = try attempt(expected) {
            self = value
            return
        }
        for other in [Expectation.string, .object, .bool, .strings] where other != expected {
            if let value = try attempt(other) {
                self = value
                return
            }
        }
        if let value = try? container.decode(Double.self) {
            self = .number(value)
            return
        }
        // What is left: a number beyond Double's range, or a string that is not valid Unicode.
        throw DecodingError.dataCorrupted(.init(
            codingPath: decoder.codingPath, debugDescription: "a number out of range or a string that is not valid Unicode"))
    }

    /// What the format holds at a place.
    enum Expectation: Sendable {
        case string, bool, object
        /// An object of arrays of strings: `substitutionVariables`.
        case variables
        /// Arrays of objects (`details`, `components`) and of strings (`appIDs`, `paths`).
        case objects, strings

        /// What the format holds under this key of an object.
        static func under(_ key: String) -> Expectation {
            switch key {
            case "applinks", "defaults", "webcredentials", "appclips", "activitycontinuation": .object
            case "substitutionVariables": .variables
            case "details", "components": .objects
            case "appIDs", "paths", "apps", "opener", "hosts": .strings
            case "exclude", "caseSensitive", "percentEncoded": .bool
            default: .string
            }
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

/// The place of a value in the document, written as JSONPath (`$.applinks.details[1]["?"]`) only
/// when a refusal reads it: every value of a file has a place, and few are ever refused.
struct JSONPath: Sendable, CustomStringConvertible {
    private enum Step: Sendable {
        case key(String)
        case index(Int)
    }

    private final class Node: Sendable {
        let parent: Node?
        let step: Step

        init(parent: Node?, step: Step) {
            self.parent = parent
            self.step = step
        }
    }

    private let last: Node?

    private init(last: Node?) { self.last = last }

    /// The document itself, `$`.
    init() { last = nil }

    func appending(_ key: String) -> JSONPath { JSONPath(last: Node(parent: last, step: .key(key))) }

    func appending(_ index: Int) -> JSONPath { JSONPath(last: Node(parent: last, step: .index(index))) }

    /// A decoding error's coding path, written the same way.
    init(_ codingPath: [any CodingKey]) {
        var path = JSONPath()
        for key in codingPath { path = key.intValue.map { path.appending($0) } ?? path.appending(key.stringValue) }
        self = path
    }

    var description: String {
        var steps: [Step] = []
        var node = last
        while let current = node {
            steps.append(current.step)
            node = current.parent
        }
        var text = "$"
        for step in steps.reversed() {
            switch step {
            case .index(let index): text += "[\(index)]"
            case .key(let key) where Self.isIdentifier(key): text += "." + key
            case .key(let key):
                var quoted = ""
                for scalar in key.unicodeScalars {
                    switch scalar {
                    case "\"": quoted += "\\\""
                    case "\\": quoted += "\\\\"
                    default: quoted.unicodeScalars.append(scalar)
                    }
                }
                text += "[\"" + quoted + "\"]"
            }
        }
        return text
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return false }
        return key.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
    }
}

// Each expectation as a concrete type, so that JSONDecoder can be asked for a value expected to be
// one; concrete rather than generic, whose metadata the runtime would look up on every value.

struct ExpectedString: Decodable {
    let value: JSONValue
    init(from decoder: any Decoder) throws { value = try JSONValue(decoder, expecting: .string) }
}

struct ExpectedBool: Decodable {
    let value: JSONValue
    init(from decoder: any Decoder) throws { value = try JSONValue(decoder, expecting: .bool) }
}

struct ExpectedObject: Decodable {
    let value: JSONValue
    init(from decoder: any Decoder) throws { value = try JSONValue(decoder, expecting: .object) }
}

struct ExpectedVariables: Decodable {
    let value: JSONValue
    init(from decoder: any Decoder) throws { value = try JSONValue(decoder, expecting: .variables) }
}

struct ExpectedObjects: Decodable {
    let value: JSONValue
    init(from decoder: any Decoder) throws { value = try JSONValue(decoder, expecting: .objects) }
}

struct ExpectedStrings: Decodable {
    let value: JSONValue
    init(from decoder: any Decoder) throws { value = try JSONValue(decoder, expecting: .strings) }
}

/// An object's members, each decoded with what its key leads to expect.
struct Fields: Decodable {
    let fields: [String: JSONValue]

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        fields = try Self.members(of: decoder) { .under($0) }
    }

    /// The members of the object `decoder` holds, each decoded as `expectation` says for its key.
    static func members(
        of decoder: any Decoder, _ expectation: (String) -> JSONValue.Expectation
    ) throws -> [String: JSONValue] {
        let container = try decoder.container(keyedBy: Key.self)
        var fields: [String: JSONValue] = [:]
        fields.reserveCapacity(container.allKeys.count)
        for key in container.allKeys {
            fields[key.stringValue] =
                switch expectation(key.stringValue) {
                case .string: try container.decode(ExpectedString.self, forKey: key).value
                case .bool: try container.decode(ExpectedBool.self, forKey: key).value
                case .object: try container.decode(ExpectedObject.self, forKey: key).value
                case .variables: try container.decode(ExpectedVariables.self, forKey: key).value
                case .objects: try container.decode(ExpectedObjects.self, forKey: key).value
                case .strings: try container.decode(ExpectedStrings.self, forKey: key).value
                }
        }
        return fields
    }
}

/// `substitutionVariables`: every member an array of strings.
struct VariableFields: Decodable {
    let fields: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        fields = try Fields.members(of: decoder) { _ in .strings }
    }
}
