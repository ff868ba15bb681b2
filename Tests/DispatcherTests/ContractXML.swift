import Foundation
import FoundationXML
import TestSupport

/// Interfaces read from introspection XML, each member as one comparable line; from `dbus/*.xml`
/// also what the `io.waypost.Error.<Name>`, `io.waypost.Key` and `io.waypost.Values` annotations state.
final class InterfaceTable: NSObject, XMLParserDelegate {
    private struct Member {
        var kind: String
        var name: String
        var arguments: [(direction: String, type: String, name: String?, keys: [String])] = []
    }

    private var members: [String: [Member]] = [:]
    private var errorNames: [String: [String]] = [:]
    private var valueSets: [String: [String: [String]]] = [:]
    /// `io.waypost.Values` annotations that name no key of the argument they annotate (or stand outside one).
    private(set) var misplacedValues: [String] = []
    private var interface = ""
    private var member: Member?
    private var inArgument = false
    /// The `name` of the root `<node>`: the object path the file describes.
    private(set) var nodePath: String?

    init(xml: Data) throws {
        super.init()
        let parser = XMLParser(data: xml)
        parser.delegate = self
        guard parser.parse() else { throw TestFailure("unreadable XML: \(parser.parserError.map { "\($0)" } ?? "?")") }
    }

    var interfaces: [String] { members.keys.sorted() }

    /// `method Open(in s uri, in a{sv} platform_data, out a{sv} outcome)`, sorted.
    func members(of interface: String) -> [String] {
        lines(of: interface) { "\($0.direction)\($0.type)\($0.name.map { " \($0)" } ?? "")" }
    }

    /// As `members(of:)` without argument names.
    func signatures(of interface: String) -> [String] {
        lines(of: interface) { "\($0.direction)\($0.type)" }
    }

    /// As `members(of:)`, each dictionary argument followed by its keys, sorted: `[kind s, matching as]`.
    func membersWithKeys(of interface: String) -> [String] {
        lines(of: interface) { argument in
            let line = "\(argument.direction)\(argument.type)\(argument.name.map { " \($0)" } ?? "")"
            return argument.keys.isEmpty ? line : line + " [" + argument.keys.sorted().joined(separator: ", ") + "]"
        }
    }

    /// The error names the interface's `io.waypost.Error.<Name>` annotations state, sorted.
    func errors(of interface: String) -> [String] { (errorNames[interface] ?? []).sorted() }

    /// The closed value sets the interface's `io.waypost.Values` annotations state ("key: a | b"), by key.
    func values(of interface: String) -> [String: [String]] { valueSets[interface] ?? [:] }

    private func lines(of interface: String, _ render: ((direction: String, type: String, name: String?, keys: [String])) -> String) -> [String] {
        (members[interface] ?? []).map { member in
            "\(member.kind) \(member.name)(\(member.arguments.map(render).joined(separator: ", ")))"
        }.sorted()
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "node" where nodePath == nil: nodePath = attributes["name"]
        case "interface":
            interface = attributes["name"] ?? ""
            members[interface, default: []] = members[interface] ?? []
        case "method", "signal": member = Member(kind: element, name: attributes["name"] ?? "")
        case "arg":
            let direction = member?.kind == "signal" ? "" : (attributes["direction"] ?? "in") + " "
            member?.arguments.append((direction, attributes["type"] ?? "?", attributes["name"], []))
            inArgument = true
        case "annotation":
            let name = attributes["name"] ?? "", value = attributes["value"] ?? ""
            if inArgument, name == "io.waypost.Key", var current = member, !current.arguments.isEmpty {
                // "name type": what travels; the codec's words after them are the generated codec's (its tests).
                current.arguments[current.arguments.count - 1].keys.append(value.split(separator: " ").prefix(2).joined(separator: " "))
                member = current
            } else if name == "io.waypost.Values" {
                let parts = value.split(separator: ":", maxSplits: 1)
                let key = String(parts[0]), values = parts.count == 2 ? parts[1].split(separator: "|") : []
                let trimmed = values.map { $0.trimmingCharacters(in: .whitespaces) }
                if valueSets[interface, default: [:]].updateValue(trimmed, forKey: key) != nil { misplacedValues.append("\(key) twice") }
                let keys = inArgument ? member?.arguments.last?.keys ?? [] : []
                if !keys.contains(where: { $0.hasPrefix(key + " ") }) { misplacedValues.append(value) }
            } else if member == nil, name.hasPrefix("io.waypost.Error.") {
                errorNames[interface, default: []].append(name)
            }
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "arg" { inArgument = false }
        guard element == "method" || element == "signal", let member else { return }
        members[interface, default: []].append(member)
        self.member = nil
    }
}
