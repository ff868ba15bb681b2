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
        // Each wrong guess costs JSONDecoder a thrown error: the kinds files hold most come first.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            // What is left: a number beyond Double's range, or a string that is not valid Unicode.
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a number out of range or a string that is not valid Unicode"))
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
