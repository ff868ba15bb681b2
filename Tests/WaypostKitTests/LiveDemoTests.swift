import Foundation
import TestSupport
import Testing

/// `make demo`'s live part, run as users run it, with its table checked row by row.
@Suite("the live demo")
struct LiveDemoTests {
    /// One row of the demo's table.
    struct Row: Equatable, CustomStringConvertible {
        var opener: String
        var app: String
        var rule: String
        var action: String
        var received: Bool
        var description: String { "\(opener) → \(app) [\(action), \(rule)] \(received ? "✓" : "✗")" }
    }

    @Test("every rule is exercised by real gio open and xdg-open calls, and each scene got its link")
    func demoTable() async throws {
        let script = KitSession.packageRoot.appendingPathComponent("Examples/demo-live.sh")
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        // Awaited, not waited for: a blocked cooperative thread would starve the tests beside this one.
        let (status, output, stderr) = try await runProgram("/bin/bash", [script.path, KitSession.binDirectory.path], environment: environment)
        #expect(status == 0, "\(stderr)")
        #expect(!stderr.contains("outlived the bus"), "the demo left processes running: \(stderr)")

        // Columns: #, opener, link, app, scene, rule, action, opener time, dispatcher time, got it, note.
        let rows: [Int: Row] = Dictionary(uniqueKeysWithValues: output.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 10, let number = Int(cells[0]) else { return nil }
            return (number, Row(opener: cells[1], app: cells[3], rule: cells[5], action: cells[6], received: cells[9] == "✓"))
        })
        let expected: [Int: Row] = [
            1: Row(opener: "gio open", app: "Contacts", rule: "preferring", action: "deliver", received: true),
            2: Row(opener: "gio open", app: "Contacts", rule: "allowing", action: "deliver", received: true),
            3: Row(opener: "gio open", app: "Contacts", rule: "preferring", action: "deliver", received: true),
            4: Row(opener: "gio open", app: "Contacts", rule: "default", action: "create", received: true),
            5: Row(opener: "gio open", app: "Photos", rule: "matching", action: "launch", received: true),
            6: Row(opener: "gio open", app: "Photos", rule: "preferring", action: "deliver", received: true),
            7: Row(opener: "gio open", app: "Photos", rule: "default", action: "create", received: true),
            8: Row(opener: "gio open", app: "Photos", rule: "allowing", action: "deliver", received: true),
            10: Row(opener: "gio open", app: "Player", rule: "single-scene", action: "deliver", received: true),
            // Universal links: photos.example's association names Photos, whose entry claims the domain.
            11: Row(opener: "gio open", app: "Photos", rule: "preferring", action: "deliver", received: true),
            12: Row(opener: "gio open", app: "Browser", rule: "browser", action: "fallback", received: true),
            13: Row(opener: "gio open", app: "Browser", rule: "browser", action: "fallback", received: true),
            14: Row(opener: "waypost continue", app: "Contacts", rule: "default", action: "create", received: true),
            15: Row(opener: "xdg-open", app: "Contacts", rule: "preferring", action: "deliver", received: true),
            16: Row(opener: "xdg-open", app: "Contacts", rule: "preferring", action: "deliver", received: true),
            17: Row(opener: "xdg-open", app: "Contacts", rule: "preferring", action: "deliver", received: true),
            18: Row(opener: "xdg-open", app: "Contacts", rule: "preferring", action: "deliver", received: true),
            19: Row(opener: "xdg-open", app: "Photos", rule: "preferring", action: "deliver", received: true),
            20: Row(opener: "xdg-open", app: "Photos", rule: "preferring", action: "deliver", received: true),
            21: Row(opener: "xdg-open", app: "Photos", rule: "allowing", action: "deliver", received: true),
            22: Row(opener: "xdg-open", app: "Photos", rule: "allowing", action: "deliver", received: true),
            24: Row(opener: "xdg-open", app: "Player", rule: "single-scene", action: "deliver", received: true),
            25: Row(opener: "xdg-open", app: "Photos", rule: "preferring", action: "deliver", received: true),
            26: Row(opener: "xdg-open", app: "Browser", rule: "browser", action: "fallback", received: true),
            27: Row(opener: "xdg-open", app: "Browser", rule: "browser", action: "fallback", received: true),
        ]
        for (number, row) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(rows[number] == row, "row \(number)\n\(output)")
        }
        // The Markdown file: Notes launched for it, in a new document scene; then xdg-open finds that scene.
        #expect(rows[9] == Row(opener: "gio open", app: "Notes", rule: "document-type", action: "launch", received: true), "\(output)")
        #expect(rows[23] == Row(opener: "xdg-open", app: "Notes", rule: "preferring", action: "deliver", received: true), "\(output)")
    }
}
