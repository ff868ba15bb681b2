import Foundation
import Testing
import TestSupport

/// Runs the built `waypost links match` as a site owner would, on good and broken files.
@Suite("waypost links match")
struct LinksCommandTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Each line of standard output as a JSON object.
        var objects: [[String: Any]] {
            get throws {
                try stdout.split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }
        }
    }

    static let shop = """
        {"applinks": {"details": [
          {"appIDs": ["org.example.Shop", "org.example.Shop.Beta"], "components": [
            {"/": "/account/*", "exclude": true, "comment": "never in the app"},
            {"/": "/product/*"},
            {"/": "/help/*", "?": {"article": "????"}}]},
          {"appID": "org.example.Outlet", "paths": ["/outlet/*"]}]}}
        """

    static func match(file json: String?, _ urls: [String]) async throws -> Run {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-aasa-\(UUID().uuidString).json")
        if let json { try json.write(to: file, atomically: true, encoding: .utf8) }
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, stdout, stderr) = try await runProgram(
            ExplainCommandTests.binary.path, ["links", "match", "--association", file.path] + urls,
            environment: ProcessInfo.processInfo.environment)
        return Run(status: status, stdout: stdout, stderr: stderr)
    }

    @Test("one JSON object per URL, in order: apps, the details entry and component that decided, and why")
    func matches() async throws {
        let urls = [
            "https://shop.example/product/42", "https://shop.example/account/me", "https://shop.example/help/x?article=1234",
            "https://shop.example/outlet/9", "https://shop.example/about",
        ]
        let run = try await Self.match(file: Self.shop, urls)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let objects = try run.objects
        #expect(objects.count == 5)
        #expect(objects.map { $0["url"] as? String } == urls)
        #expect(objects[0]["apps"] as? [String] == ["org.example.Shop", "org.example.Shop.Beta"])
        #expect(objects[0]["details"] as? Int == 0 && objects[0]["component"] as? Int == 1)
        #expect((objects[0]["reason"] as? String)?.contains("details[0].components[1]") == true)
        #expect(objects[1]["apps"] as? [String] == [] && objects[1]["excluded"] as? Bool == true)
        #expect(objects[1]["component"] as? Int == 0)
        #expect(objects[2]["component"] as? Int == 2)
        #expect(objects[3]["apps"] as? [String] == ["org.example.Outlet"] && objects[3]["details"] as? Int == 1)
        // Nothing matched: the keys are there, null.
        #expect(objects[4]["apps"] as? [String] == [])
        #expect(objects[4]["details"] is NSNull && objects[4]["component"] is NSNull)
        #expect((objects[4]["reason"] as? String)?.contains("no component matches") == true)
    }

    @Test("quotes and backslashes in a URL come out as valid JSON")
    func escaping() async throws {
        let url = #"https://shop.example/product/a"b\c"#
        let run = try await Self.match(file: Self.shop, [url])
        #expect(run.status == 0)
        #expect(try run.objects.first?["url"] as? String == url)
    }

    @Test("a malformed file exits 65 with the JSON path and the problem on stderr, and prints nothing")
    func malformed() async throws {
        let run = try await Self.match(
            file: #"{"applinks": {"details": [{"components": [{"?": ["a"]}]}]}}"#, ["https://shop.example/"])
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(#"$.applinks.details[0].components[0]["?"]"#))
        #expect(run.stderr.contains("expected a string or an object of query items, found an array"))
    }

    @Test("text that is not JSON exits 65")
    func notJSON() async throws {
        let run = try await Self.match(file: "{\"applinks\": ", ["https://shop.example/"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("not valid JSON"))
    }

    @Test("an unreadable file exits 66 and names it")
    func unreadable() async throws {
        let run = try await Self.match(file: nil, ["https://shop.example/"])
        #expect(run.status == 66)
        #expect(run.stderr.contains("waypost-aasa-") && run.stderr.contains("cannot read"))
    }

    @Test("an argument that is not a web link is a usage error naming it")
    func notAWebLink() async throws {
        let run = try await Self.match(file: Self.shop, ["https://shop.example/", "myapp://x"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("myapp://x") && run.stderr.contains("not a web link"))
    }

    @Test("an undefined variable is a warning on stderr; the rest of the file still matches")
    func warning() async throws {
        let run = try await Self.match(
            file: #"{"applinks": {"details": [{"appIDs": ["A"], "components": [{"/": "/$(nope)"}, {"/": "*"}]}]}}"#,
            ["https://shop.example/x"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning") && run.stderr.contains("$(nope)"))
        #expect(try run.objects.first?["component"] as? Int == 1)
    }
}
