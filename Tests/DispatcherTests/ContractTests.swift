import DBus
import Foundation
import FoundationXML
import TestSupport
import Testing

/// The XML in `dbus/` is the contract: what the daemon and a participating app export must match it.
@Suite("the D-Bus contract in dbus/", .serialized)
struct ContractTests {
    static let contractDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("dbus")

    @Test("the daemon exports io.waypost.Dispatcher1 exactly as dbus/io.waypost.Dispatcher1.xml says")
    func dispatcher() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let bus = try await session.connect()
        let exported = try await Self.introspect(bus, "io.waypost.Dispatcher", "/io/waypost/Dispatcher")
        let contract = try InterfaceTable(xml: Data(contentsOf: Self.contractDirectory.appendingPathComponent("io.waypost.Dispatcher1.xml")))
        #expect(!contract.members.isEmpty)
        #expect(exported.members(of: "io.waypost.Dispatcher1") == contract.members(of: "io.waypost.Dispatcher1"))
        // What GIO openers call on a DBusActivatable entry.
        #expect(exported.members(of: "org.freedesktop.Application") == [
            "method Activate(in a{sv} platform_data)",
            "method ActivateAction(in s action_name, in av parameter, in a{sv} platform_data)",
            "method Open(in as uris, in a{sv} platform_data)",
        ])
    }

    @Test("the Python sample app, written from dbus/io.waypost.Application1.xml, exports what it says")
    func application() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingOverTheBusTests.contactsApp(scenes: []))
        try await session.start(app)
        let bus = try await session.connect()
        let owner = try #require(try await session.status(with: bus).processes.first?["owner"])
        let exported = try await Self.introspect(bus, BusName(owner), "/io/waypost/sample")
        let contract = try InterfaceTable(xml: Data(contentsOf: Self.contractDirectory.appendingPathComponent("io.waypost.Application1.xml")))
        // dbus-python names no arguments, so compare the signatures alone.
        #expect(exported.signatures(of: "io.waypost.Application1") == contract.signatures(of: "io.waypost.Application1"))
        #expect(contract.signatures(of: "io.waypost.Application1").count == 3)
    }

    static func introspect(_ bus: Connection, _ name: BusName, _ path: ObjectPath) async throws -> InterfaceTable {
        let reply = try await bus.call(
            destination: name, path: path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        return try InterfaceTable(xml: Data(try reply.decode(String.self).utf8))
    }
}

/// Interfaces read from introspection XML: each member as one comparable line.
final class InterfaceTable: NSObject, XMLParserDelegate {
    private var lines: [String: [String]] = [:]
    private var bare: [String: [String]] = [:]
    private var interface = ""
    private var member: (kind: String, name: String, arguments: [String], types: [String])?

    init(xml: Data) throws {
        super.init()
        let parser = XMLParser(data: xml)
        parser.delegate = self
        guard parser.parse() else { throw TestFailure("unreadable XML: \(parser.parserError.map { "\($0)" } ?? "?")") }
    }

    var members: [String] { lines.values.flatMap { $0 }.sorted() }

    func members(of interface: String) -> [String] { (lines[interface] ?? []).sorted() }

    func signatures(of interface: String) -> [String] { (bare[interface] ?? []).sorted() }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "interface": interface = attributes["name"] ?? ""
        case "method", "signal": member = (element, attributes["name"] ?? "", [], [])
        case "arg":
            let direction = member?.kind == "signal" ? "" : (attributes["direction"] ?? "in") + " "
            let name = attributes["name"].map { " \($0)" } ?? ""
            member?.arguments.append("\(direction)\(attributes["type"] ?? "?")\(name)")
            member?.types.append("\(direction)\(attributes["type"] ?? "?")")
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        guard element == "method" || element == "signal", let member else { return }
        lines[interface, default: []].append("\(member.kind) \(member.name)(\(member.arguments.joined(separator: ", ")))")
        bare[interface, default: []].append("\(member.kind) \(member.name)(\(member.types.joined(separator: ", ")))")
        self.member = nil
    }
}
