import Foundation
import Testing
import TestSupport

/// Runs the built `waypost` binary as a user would, on the example scenarios and on broken ones.
@Suite("waypost explain")
struct ExplainCommandTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `waypost` binary beside this test bundle in the build directory (`WAYPOST` overrides it).
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["WAYPOST"] { return URL(fileURLWithPath: path) }
        // The test bundle is an executable in the build directory, next to the products it tests.
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("waypost")
    }()

    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples")

    /// Through `runProgram`, not `Process`: every test target runs in one process, and Foundation
    /// may never notice the exit of a child whose socket a long-lived process another suite
    /// started inherited.
    static func explain(_ arguments: [String]) async throws -> Run {
        let (status, stdout, stderr) = try await runProgram(
            binary.path, ["explain"] + arguments, environment: ProcessInfo.processInfo.environment)
        return Run(status: status, stdout: stdout, stderr: stderr)
    }

    static func explain(json: String, format: String = "json") async throws -> Run {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-\(UUID().uuidString).json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await explain(["--scenario", file.path, "--format", format])
    }

    @Test("the binary is where the tests look for it")
    func binaryExists() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "\(Self.binary.path)")
    }

    @Test("each example scenario gets its decision", arguments: [
        ("issue-example", "deliver", "scene", "w1", "allowing"),
        ("photos-detail", "create", "declaration", "Photo", "matching"),
        ("photos-browser", "create", "declaration", "browser", "default"),
        ("contacts-selected", "deliver", "scene", "showing-ada", "preferring"),
        ("contacts-other", "deliver", "scene", "nothing-selected", "allowing"),
        ("contacts-all-busy", "create", "declaration", "contacts", "default"),
        ("single-scene", "deliver", "scene", "the-window", "single-scene"),
        ("document-markdown", "create", "declaration", "editor", "document-type"),
        ("diacritics", "deliver", "scene", "dessert", "preferring"),
        ("activity-webpage", "create", "declaration", "article", "matching"),
    ])
    func example(name: String, action: String, key: String, destination: String, rule: String) async throws {
        let run = try await Self.explain(["--scenario", Self.examples.appendingPathComponent("\(name).json").path])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String]
        #expect(object?["action"] == action)
        #expect(object?[key] == destination)
        #expect(object?["rule"] == rule)
        #expect(object?["reason"]?.isEmpty == false)
        #expect(object?.count == 4)
    }

    @Test("an unhandled event prints action unhandled and rule none, and exits 0")
    func unhandled() async throws {
        let run = try await Self.explain(["--scenario", Self.examples.appendingPathComponent("unhandled.json").path])
        #expect(run.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String]
        #expect(object?["action"] == "unhandled")
        #expect(object?["rule"] == "none")
        #expect(object?["scene"] == nil && object?["declaration"] == nil)
    }

    @Test("--format text prints destination, rule and reason for people")
    func text() async throws {
        let run = try await Self.explain(["--scenario", Self.examples.appendingPathComponent("photos-detail.json").path, "--format", "text"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("destination: new scene of \"Photo\""))
        #expect(run.stdout.contains("rule:        matching"))
    }

    static let good = #"{"declarations": [{"id": "a", "kind": "windowGroup"}], "event": {"url": "x://y"}}"#

    @Test("a malformed scenario exits non-zero and names the problem on stderr", arguments: [
        (#"{"declarations": [ "#, "not valid JSON"),
        (#"{"declarations": [{"id": "a", "kind": "windowGroup"}]}"#, "missing key \"event\""),
        (#"{"declarations": [{"id": "a", "kind": "windowgroup"}], "event": {"url": "x"}}"#, "unknown kind \"windowgroup\""),
        (#"{"declarations": [{"id": "a", "kind": "windowGroup"}], "openScenes": [{"id": "w", "declaration": "b"}], "event": {"url": "x"}}"#,
         "scene \"w\" is an instance of \"b\""),
        (#"{"declarations": [{"id": "a", "kind": "windowGroup"}, {"id": "a", "kind": "windowGroup"}], "event": {"url": "x"}}"#,
         "two declarations have the id \"a\""),
        (#"{"declarations": [{"id": "a", "kind": "windowGroup"}], "openScenes": [{"id": "w", "declaration": "a"}, {"id": "w", "declaration": "a"}], "event": {"url": "x"}}"#,
         "a scene with the id \"w\" is already open"),
        (#"{"declarations": [{"id": "a", "kind": "windowGroup", "matching": "photo"}], "event": {"url": "x"}}"#,
         "at declarations[0].matching: expected an array"),
        (#"{"multipleScenes": "yes", "declarations": [], "event": {"url": "x"}}"#, "at multipleScenes: expected true or false"),
        (#"{"declarations": [], "event": {"url": 42}}"#, "at event.url: expected a string"),
        (#"{"declarations": [], "event": {}}"#, "exactly one of \"url\" or \"activity\""),
        (#"{"declarations": [], "event": {"activity": {"title": "t"}}}"#, "at event.activity: missing key \"type\""),
        (#"{"declarations": [], "event": {"url": "x"}, "openscenes": []}"#, "unknown key \"openscenes\""),
        (#"[]"#, "expected an object"),
    ])
    func malformed(json: String, problem: String) async throws {
        let run = try await Self.explain(json: json)
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(problem), "stderr: \(run.stderr)")
    }

    @Test("a missing file exits 66 and names the file")
    func missingFile() async throws {
        let run = try await Self.explain(["--scenario", "/nonexistent/scenario.json"])
        #expect(run.status == 66)
        #expect(run.stderr.contains("/nonexistent/scenario.json"))
    }

    @Test("--scenario is required")
    func scenarioRequired() async throws {
        let run = try await Self.explain([])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--scenario"))
    }

    @Test("the reason is valid JSON even with quotes and control characters in ids")
    func escaping() async throws {
        let run = try await Self.explain(json: #"{"declarations": [{"id": "a \"quoted\"\n\u0001 ✓", "kind": "windowGroup"}], "event": {"url": "x"}}"#)
        #expect(run.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String]
        #expect(object?["declaration"] == "a \"quoted\"\n\u{1} ✓")
    }
}
