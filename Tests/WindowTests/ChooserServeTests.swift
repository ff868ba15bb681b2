import Chooser
import Foundation
import Planning
import TestSupport
import Testing

/// `waypost choose --serve`, the chooser kept running by the dispatcher: requests on stdin, one
/// window each (a new one every time), one line out each, under Xvfb and openbox as
/// `ChooserWindowTests`, whose helpers it uses.
@Suite(.serialized) struct ChooserServeTests {
    let helpers = ChooserWindowTests()
    static let title = ChooserWindowTests.title

    /// The next line the chooser prints, split at its tabs; the chooser's stderr in the failure.
    func nextFields(
        _ chooser: ChildProcess, _ desktop: WindowDesktop, _ what: String, line number: Int = #line
    ) async throws -> [String] {
        let log = { (try? String(contentsOf: desktop.root.appendingPathComponent("logs/chooser.log"), encoding: .utf8)) ?? "" }
        guard let line = try await chooser.nextLine("the chooser prints \(what) (line \(number))") else {
            throw TestFailure("the chooser's output ended before \(what)\n\(log())")
        }
        return line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }

    /// Waits until the chooser's window is no longer managed: destroyed, not just answered.
    func waitUntilGone(_ desktop: WindowDesktop) async throws {
        try await waitUntil("the chooser's window is gone") { try await !desktop.windowTitles().contains(Self.title) }
    }

    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func oneProcessAnswersRequestAfterRequestEachInANewWindow() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        try helpers.installEntries(desktop)
        let input = try ChildInput()
        defer { input.close() }
        let chooser = try await ChildProcess.start(
            Built.waypost.path, ["choose", "--serve"], environment: desktop.environment,
            errors: desktop.root.appendingPathComponent("logs/chooser.log"), input: input)
        defer { chooser.kill() }
        #expect(try await nextFields(chooser, desktop, "ready") == ["ready"])

        // 1: no token; Down, Return picks the second, with a token GDK made for it.
        try input.write("\tmyscheme:item/1\tscheme:myscheme\t\torg.example.A\torg.example.B\n")
        let first = try await helpers.focusedWindow(of: chooser, desktop)
        #expect(try await desktop.startupID(of: first) == nil, "no token, no startup id")
        try await helpers.type(desktop, ["Down", "Return"])
        var fields = try await nextFields(chooser, desktop, "the first answer")
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.B", "once", "any"], "\(fields)")
        #expect(fields.count == 5 && fields[4].contains("_TIME"), "\(fields)")
        try await waitUntilGone(desktop)

        // 2: another subject, in a window of its own; Escape cancels.
        try input.write("\thttps://example.com/two\tsite:example.com\torg.example.Mail\torg.example.A\torg.example.B\n")
        let second = try await helpers.focusedWindow(of: chooser, desktop)
        #expect(second != first, "a new window for the new request")
        try await helpers.type(desktop, ["Escape"])
        fields = try await nextFields(chooser, desktop, "the second answer")
        #expect(fields == ["cancel"])
        try await waitUntilGone(desktop)

        // 3: the opener's token presents the window. GTK 4 on X11 sets it as the window's own
        // `_NET_STARTUP_ID` (gtk_window_set_startup_id; the client leader's is the environment's,
        // which the served windows do not use). Return picks the first.
        try input.write("serve-token-3\tmyscheme:item/3\tscheme:myscheme\t\torg.example.A\torg.example.B\n")
        let third = try await helpers.focusedWindow(of: chooser, desktop)
        #expect(third != second && third != first, "a new window for the new request")
        #expect(try await desktop.startupID(of: third) == "serve-token-3")
        try await helpers.type(desktop, ["Return"])
        fields = try await nextFields(chooser, desktop, "the third answer")
        #expect(Array(fields.prefix(4)) == ["pick", "org.example.A", "once", "any"], "\(fields)")
        try await waitUntilGone(desktop)

        // The window manager closes the window: a cancel, and the chooser goes on.
        try input.write("\tmyscheme:item/4\tscheme:myscheme\t\torg.example.A\torg.example.B\n")
        let fourth = try await helpers.focusedWindow(of: chooser, desktop)
        try await desktop.closeWindow(fourth)
        fields = try await nextFields(chooser, desktop, "the fourth answer")
        #expect(fields == ["cancel"])
        try await waitUntilGone(desktop)

        // Lines that do not read are answered `error`, and the chooser goes on.
        try input.write("one field only\n")
        fields = try await nextFields(chooser, desktop, "an error for one field")
        #expect(fields.first == "error" && fields.count == 2, "\(fields)")
        try input.write("\tx:y\tnowhere\t\torg.example.A\n")
        fields = try await nextFields(chooser, desktop, "an error for a bad scope")
        #expect(fields == ["error", "not a scope: \"nowhere\""], "\(fields)")
        try input.write("\tx:y\tbrowser\t\torg.example.A#incognito\n")
        fields = try await nextFields(chooser, desktop, "an error for a bad destination")
        #expect(fields == ["error", "not a destination: \"org.example.A#incognito\""], "\(fields)")
        // 65536 bytes before the newline are read whole (the error is the scope's, not the length's).
        let longest = "\t" + String(repeating: "x", count: 65536 - "\t\tnowhere\t\ta".utf8.count) + "\tnowhere\t\ta"
        try input.write(longest + "\n")
        fields = try await nextFields(chooser, desktop, "an error for the longest line")
        #expect(fields == ["error", "not a scope: \"nowhere\""], "\(longest.utf8.count) bytes: \(fields)")
        try input.write(String(repeating: "x", count: 70_000) + "\n")
        fields = try await nextFields(chooser, desktop, "an error for a line too long")
        #expect(fields == ["error", "the line is longer than 65536 bytes"], "\(fields)")

        // The end of stdin with a window open: it is cancelled and closed, and the chooser exits 0.
        try input.write("\thttps://example.com/last\tsite:example.com\t\torg.example.A\n")
        _ = try await helpers.focusedWindow(of: chooser, desktop)
        input.close()
        fields = try await nextFields(chooser, desktop, "the last answer")
        #expect(fields == ["cancel"])
        #expect(try await chooser.nextLine("the chooser's output ends") == nil)
        #expect(try await withDeadline("the chooser exits") { try await chooser.status() } == 0)
        try await waitUntilGone(desktop)
        // No GLib criticals: a window destroyed under the chooser would show as some here.
        let log = try String(contentsOf: desktop.root.appendingPathComponent("logs/chooser.log"), encoding: .utf8)
        #expect(!log.contains("CRITICAL") && !log.contains("GLib-GObject-WARNING"), "\(log)")
    }

    @Test func withoutADisplayItExits3SayingWhyAndPrintsNothing() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        // No Wayland socket to fall back on either (GTK tries wayland-0 in the runtime directory).
        environment["XDG_RUNTIME_DIR"] = FileManager.default.temporaryDirectory.path
        let result = try await runProgram(Built.waypost.path, ["choose", "--serve"], environment: environment)
        #expect(result.status == 3)
        #expect(result.output.isEmpty, "no `ready`: \(result.output)")
        #expect(result.errors.contains("waypost choose: no display can be opened (DISPLAY unset, WAYLAND_DISPLAY unset)"), "\(result.errors)")
    }

    @Test func serveTakesNoOtherOption() async throws {
        let result = try await runProgram(Built.waypost.path, ["choose", "--serve", "--subject", "x:y"], environment: [:])
        #expect(result.status == 64, "\(result.errors)")
        #expect(result.output.isEmpty)
    }
}

/// The request lines `waypost choose --serve` reads.
struct ServedRequestTests {
    func read(_ line: String) throws(ServedRequest.Unreadable) -> ServedRequest { try ServedRequest(line: Array(line.utf8)) }

    @Test func aLineIsTokenSubjectScopeOpenerAndDestinations() throws {
        let served = try read("tok-1\thttps://example.com/a b\tsite:Example.com\torg.example.Mail\tfirefox\tchromium#profile=Work\tfirefox#private")
        #expect(served.token == "tok-1")
        #expect(served.request == ChooserRequest(
            subject: "https://example.com/a b", scope: .site("example.com"), opener: "org.example.Mail",
            candidates: [NamedDestination(app: "firefox"), NamedDestination(app: "chromium", window: .profile("Work")),
                         NamedDestination(app: "firefox", window: .privateWindow)]))

        let bare = try read("\tx:y\tbrowser\t\ta")
        #expect(bare.token.isEmpty && bare.request.opener == nil && bare.request.candidates == [NamedDestination(app: "a")])
    }

    @Test func whatDoesNotReadSaysWhy() {
        let reasons: [(String, String)] = [
            ("", "1 field, not TOKEN, SUBJECT, SCOPE, OPENER and at least one DEST"),
            ("t\tx:y\tbrowser\t", "4 fields, not TOKEN, SUBJECT, SCOPE, OPENER and at least one DEST"),
            ("t\tx:y\tnowhere\t\ta", "not a scope: \"nowhere\""),
            ("t\tx:y\tbrowser\ta#private\ta", "OPENER takes a desktop-file id, not \"a#private\""),
            ("t\tx:y\tbrowser\t\ta\t", "not a destination: \"\""),
            ("t\tx:y\tbrowser\t\ta\u{7}", "not a destination: \"a\u{FFFD}\""),
        ]
        for (line, reason) in reasons {
            #expect(throws: ServedRequest.Unreadable(reason), "\(line.debugDescription)") { try read(line) }
        }
        #expect(throws: ServedRequest.Unreadable("the line is not UTF-8")) { try ServedRequest(line: [0x09, 0xFF, 0x09]) }
        #expect(servedErrorLine("a\tb\nc") == "error\ta\u{FFFD}b\u{FFFD}c")
    }
}
