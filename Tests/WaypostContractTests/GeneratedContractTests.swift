import DBus
import ExternalEvents
import Foundation
import TestSupport
import Testing
import WaypostContract

/// The contract generated from `dbus/*.xml`: the checked-in Swift is the generator's, the generator
/// refuses what the Swift could not state faithfully, and what it generates is data the daemon can
/// read at run time. No bus.
@Suite("the contract generated from dbus/")
struct GeneratedContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generated = root.appendingPathComponent("Sources/WaypostContract/Generated")
    /// Built beside the test bundle, as a product this target depends on.
    static let generator = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("contract-generator")

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func generate(_ source: URL, into output: URL) async throws -> (status: Int32, errors: String) {
        let result = try await runProgram(generator.path, [source.path, output.path], environment: [:])
        return (result.status, result.errors)
    }

    static func files(_ directory: URL) throws -> [String: Data] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).reduce(into: [:]) { files, name in
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
    }

    @Test("the checked-in Generated/ is, byte for byte, what the generator writes from dbus/*.xml")
    func checkedIn() async throws {
        let output = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await Self.generate(Self.root.appendingPathComponent("dbus"), into: output)
        #expect(run.status == 0, "\(run.errors)")
        let written = try Self.files(output), checkedIn = try Self.files(Self.generated)
        #expect(written.keys.sorted() == checkedIn.keys.sorted())
        for (name, bytes) in written { #expect(checkedIn[name] == bytes, "\(name) differs: run make contract") }
        // Not vacuous: every interface of dbus/ has its file.
        #expect(written.keys.contains("Dispatcher1.swift") && written.keys.contains("DBusMenu.swift") && written.count >= 10)
    }

    @Test("a file the generator no longer writes is removed; one it writes again is left as it was")
    func staleFilesGo() async throws {
        let output = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: output) }
        let source = Self.root.appendingPathComponent("dbus")
        #expect(try await Self.generate(source, into: output).status == 0)
        try Data("// gone\n".utf8).write(to: output.appendingPathComponent("Removed1.swift"))
        let before = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("Failures.swift").path)[.modificationDate] as? Date
        #expect(try await Self.generate(source, into: output).status == 0)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("Removed1.swift").path))
        let after = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("Failures.swift").path)[.modificationDate] as? Date
        #expect(before == after)
    }

    /// An introspection file of one interface holding `members`.
    static func interface(_ members: String) -> String {
        """
        <node name="/org/example/Thing">
          <interface name="org.example.Thing1">
        \(members)
          </interface>
        </node>
        """
    }

    @Test(
        "XML the Swift could not state faithfully is refused, naming the file and what in it",
        arguments: [
            ("a method without a policy beside methods with one", interface("""
                <method name="Get"><annotation name="io.waypost.Serving" value="takes-turns"/><annotation name="io.waypost.CallsInFlight" value="few"/></method>
                <method name="Put"/>
            """), "Put has no io.waypost.Serving"),
            ("a policy of no known word", interface("""
                <method name="Get"><annotation name="io.waypost.Serving" value="whenever"/><annotation name="io.waypost.CallsInFlight" value="few"/></method>
            """), "io.waypost.Serving is once, one of"),
            ("a serving without its budget", interface("""
                <method name="Get"><annotation name="io.waypost.Serving" value="delivers"/></method>
            """), "go together"),
            ("a misspelt annotation", interface("""
                <method name="Get"><annotation name="io.waypost.Serve" value="delivers"/></method>
            """), "io.waypost.Serve is no annotation"),
            ("keys with no dictionary named", interface("""
                <method name="Get"><arg name="options" type="a{sv}" direction="in"><annotation name="io.waypost.Key" value="full b"/></arg></method>
            """), "names its dictionary"),
            ("one dictionary's key of two types", interface("""
                <method name="Get"><arg name="a" type="a{sv}"><annotation name="io.waypost.Dictionary" value="Options"/><annotation name="io.waypost.Key" value="full b"/></arg></method>
                <method name="Put"><arg name="b" type="a{sv}"><annotation name="io.waypost.Dictionary" value="Options"/><annotation name="io.waypost.Key" value="full s"/></arg></method>
            """), "key full is b in"),
            ("a value set of a key that is no string", interface("""
                <method name="Get"><arg name="a" type="a{sv}"><annotation name="io.waypost.Dictionary" value="Options"/><annotation name="io.waypost.Key" value="full b"/><annotation name="io.waypost.Values" value="full: yes | no"/></arg></method>
            """), "no string key"),
            ("a key's type that is not one D-Bus type", interface("""
                <method name="Get"><arg name="a" type="a{sv}"><annotation name="io.waypost.Dictionary" value="Options"/><annotation name="io.waypost.Key" value="pair ss"/></arg></method>
            """), "more than one complete type"),
            ("an element introspection has not", interface("""
                <method name="Get"><doc>what it does</doc></method>
            """), "<doc> inside <method>"),
        ])
    func refusals(_ what: String, _ xml: String, _ said: String) async throws {
        let source = try Self.scratch(), output = try Self.scratch()
        defer { for directory in [source, output] { try? FileManager.default.removeItem(at: directory) } }
        try Data(xml.utf8).write(to: source.appendingPathComponent("org.example.Thing1.xml"))
        let run = try await Self.generate(source, into: output)
        #expect(run.status == 1, "\(what)")
        #expect(run.errors.contains("org.example.Thing1.xml") && run.errors.contains(said), "\(what): \(run.errors)")
        #expect(try Self.files(output).isEmpty, "\(what): nothing written")
    }

    @Test("every error an interface replies with is one of the dispatcher's, each with when; names round-trip")
    func errorTables() {
        let dispatcher = Set(Contract.Dispatcher1.errors)
        #expect(dispatcher == Set(Contract.Failure.allCases))
        #expect(Set(Contract.Application1.errors).isSubset(of: dispatcher) && Contract.Application1.errors.count == 4)
        #expect(Set(Contract.Handoff1.errors).isSubset(of: dispatcher) && !Contract.Handoff1.errors.isEmpty)
        for table in [Contract.Dispatcher1.errorTable, Contract.Application1.errorTable, Contract.Handoff1.errorTable] {
            for entry in table { #expect(!entry.meaning.isEmpty, "\(entry.failure)") }
        }
        #expect(Contract.Dispatcher1.errorTable.first { $0.failure == .busy }?.meaning.contains("in flight") == true)
        for failure in Contract.Failure.allCases {
            #expect(Contract.Failure(failure.errorName) == failure)
            #expect(failure.errorName.rawValue == Contract.errorPrefix + failure.rawValue)
        }
    }

    @Test("names, paths and properties are the XML's; a dictionary's keys are every key its arguments list")
    func names() {
        #expect(Contract.busName == "io.waypost.Dispatcher" && Contract.objectPath == "/io/waypost/Dispatcher")
        #expect(Contract.handoffObjectPath == "/io/waypost/Handoff")
        #expect(Contract.KRunner1.interface == "org.kde.krunner1" && Contract.DBusMenu.interface == "com.canonical.dbusmenu")
        #expect(Contract.DBusMenu.properties.map(\.name.rawValue) == ["Version", "TextDirection", "Status", "IconThemePath"])
        #expect(Contract.DBusMenu.version.exported { .uint32(3) }.signature == "u")
        // Open's platform data and the portal's app id are one dictionary's keys.
        let platform = Set(Contract.PlatformData.Keys.all.map(\.name))
        #expect(platform == ["activation-token", "desktop-startup-id", "shows-pages", "app-id"])
        for member in Contract.Dispatcher1.members + Contract.Application1.members {
            for parameter in member.arguments + member.results where parameter.signature == "a{sv}" && parameter.name == "platform_data" {
                #expect(Set(parameter.keys.map(\.name)).isSubset(of: platform), "\(member.name)")
            }
        }
        #expect(Contract.Dispatcher1.values["rule"] == Contract.RoutingOutcome.Rule.allCases.map(\.rawValue))
        #expect(Contract.Dispatcher1.values["kind"] == ["window-group", "document-group"])
    }
}
