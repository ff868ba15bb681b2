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
                case .object: .object(try container.decode(Fields<ByKeyName>.self).fields)
                case .variables: .object(try container.decode(Fields<AllStringArrays>.self).fields)
                case .objects: .array(try container.decode([Placed<ObjectExpected>].self).map(\.value))
                case .strings: .array(try container.decode([Placed<StringExpected>].self).map(\.value))
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
            case "appIDs", "paths", "apps": .strings
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

/// An expectation as a type, so that JSONDecoder can be asked for a value expected to be one.
protocol ExpectedKind { static var expectation: JSONValue.Expectation { get } }
enum StringExpected: ExpectedKind { static var expectation: JSONValue.Expectation { .string } }
enum BoolExpected: ExpectedKind { static var expectation: JSONValue.Expectation { .bool } }
enum ObjectExpected: ExpectedKind { static var expectation: JSONValue.Expectation { .object } }
enum VariablesExpected: ExpectedKind { static var expectation: JSONValue.Expectation { .variables } }
enum ObjectArraysExpected: ExpectedKind { static var expectation: JSONValue.Expectation { .objects } }
enum StringArraysExpected: ExpectedKind { static var expectation: JSONValue.Expectation { .strings } }

/// A value decoded with what its place leads to expect.
struct Placed<Expected: ExpectedKind>: Decodable {
    let value: JSONValue

    init(from decoder: any Decoder) throws {
        value = try JSONValue(decoder, expecting: Expected.expectation)
    }
}

/// How an object's members are expected: by their key, or all alike.
protocol MemberExpectation { static func expectation(under key: String) -> JSONValue.Expectation }
enum ByKeyName: MemberExpectation { static func expectation(under key: String) -> JSONValue.Expectation { .under(key) } }
enum AllStringArrays: MemberExpectation { static func expectation(under key: String) -> JSONValue.Expectation { .strings } }

/// An object's members, each decoded with what its key leads to expect.
struct Fields<Members: MemberExpectation>: Decodable {
    private(set) var fields: [String: JSONValue] = [:]

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        fields.reserveCapacity(container.allKeys.count)
        for key in container.allKeys {
            fields[key.stringValue] =
                switch Members.expectation(under: key.stringValue) {
                case .string: try container.decode(Placed<StringExpected>.self, forKey: key).value
                case .bool: try container.decode(Placed<BoolExpected>.self, forKey: key).value
                case .object: try container.decode(Placed<ObjectExpected>.self, forKey: key).value
                case .variables: try container.decode(Placed<VariablesExpected>.self, forKey: key).value
                case .objects: try container.decode(Placed<ObjectArraysExpected>.self, forKey: key).value
                case .strings: try container.decode(Placed<StringArraysExpected>.self, forKey: key).value
                }
        }
    }
}
