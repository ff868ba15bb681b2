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

