import DBus
import Desktop
@testable import Dispatcher
import Foundation
import Planning
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// The user's choice in the daemon, with the chooser answered as a person would (the window itself
/// is `waypost choose`, tested on a real display in ChooserWindowTests): what reaches the apps,
/// what `Open` answers, what is remembered and what `Explain` says.
@Suite("the chooser, in the dispatcher")
struct ChooserTests {
    /// Two participating apps that declare `people:`.
    static let contacts = SampleApp(
        "org.example.Contacts", schemes: ["people"], declarations: [("main", ["kind": "window-group"])],
        scenes: [("c1", "main", [([], ["*"])])])
    static let notes = SampleApp(
        "org.example.Notes", schemes: ["people"], declarations: [("main", ["kind": "window-group"])],
        scenes: [("n1", "main", [([], ["*"])])])

    /// Answers as scripted, one answer per request, and records each request; `held` answers wait
    /// until `release` is called.
    final class ScriptedChooser: ChooserWindows {
        private let state = Mutex<(answers: [ChooserAnswer], asked: [ChoiceRequest], tokens: [String?])>(([], [], []))
        private let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let holding: Bool

        init(_ answers: [ChooserAnswer], holding: Bool = false) {
            state.withLock { $0.answers = answers }
            self.holding = holding
        }

        var asked: [ChoiceRequest] { state.withLock { $0.asked } }
        var tokens: [String?] { state.withLock { $0.tokens } }

        func ask(_ request: ChoiceRequest, platformData: LaunchPlatformData) async -> ChooserAnswer {
            state.withLock {
                $0.asked.append(request)
                $0.tokens.append(platformData.activationToken)
            }
            if holding { await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
            return state.withLock { $0.answers.isEmpty ? .cancelled : $0.answers.removeFirst() }
        }

        /// Lets a held answer through, once the window was asked for.
        func release() async throws {
            try await waitUntil("the chooser is shown") { gate.withLock { $0 != nil } }
            gate.withLock { $0.take() }?.resume()
        }
    }

    static func both(_ session: PeerDesktop) async throws -> Connection {
        try await session.installApp(contacts)
        try await session.installApp(notes)
        try await session.start(contacts)
        try await session.start(notes)
        return try await session.connect()
    }

    static func pick(_ app: String, always: Bool = false, token: String? = nil) -> ChooserAnswer {
        .picked(ChooserPick(destination: NamedDestination(app: app), always: always, token: token))
    }

    @Test("two apps declare the scheme: the chooser lists both; the one picked gets the link once, with the chooser's token")
    func pickOnce() async throws {
        let chooser = ScriptedChooser([Self.pick(Self.notes.id, token: "picked-token")])
        let session = try await PeerDesktop(chooser: chooser)
        defer { session.close() }
        let bus = try await Self.both(session)
        let outcome = try await session.open(
            "people://ada", with: bus, platformData: ["activation-token": Variant("opener-token")])
        #expect(outcome["app-id"] == Self.notes.id && outcome["scene-id"] == "n1", "\(outcome)")
        #expect(chooser.asked.map { $0.candidates.map(\.app) } == [[Self.contacts.id, Self.notes.id]])
        #expect(chooser.asked.first?.subject == "people://ada")
        #expect(chooser.asked.first?.scope == .scheme("people"))
        // The window is raised with the opener's token; the app with the one the chooser got at the pick.
        #expect(chooser.tokens == ["opener-token"])
        let received = session.received(Self.notes.id)
        #expect(received.count == 1, "\(received)")
        #expect(received.first?["uri"] as? String == "people://ada")
        let platform = received.first?["platform_data"] as? [String: Any]
        #expect(platform?["activation-token"] as? String == "picked-token", "\(received)")
        #expect(session.received(Self.contacts.id).isEmpty)
        // Reported once, as delivered where the user picked.
        #expect(session.busLog.components(separatedBy: "→ \(Self.notes.id) n1").count == 2, "\(session.busLog)")
        // Just once: the next link asks again.
        _ = try? await session.open("people://bob", with: bus)
        #expect(chooser.asked.count == 2)
    }

    @Test("always: the next link of the scheme skips the chooser, Explain names the choice, and it survives a restart")
    func always() async throws {
        let chooser = ScriptedChooser([Self.pick(Self.notes.id, always: true)])
        let session = try await PeerDesktop(chooser: chooser)
        defer { session.close() }
        let bus = try await Self.both(session)
        _ = try await session.open("people://ada", with: bus)
        let second = try await session.open("people://bob", with: bus)
        #expect(second["app-id"] == Self.notes.id)
        #expect(chooser.asked.count == 1)
        let explained = try await PlanCarriedOutTests().explain("people://carol", bus)
        #expect(explained["reason"]?.contains("your choice for people: links, made ") == true, "\(explained)")
        // On disk, where a daemon started later and `waypost choices` read it.
        let file = try String(contentsOf: session.root.appendingPathComponent("config/waypost/choices"), encoding: .utf8)
        #expect(file.contains("choice\tscheme:people\t*\torg.example.Notes\t"), "\(file)")
        let listed = try await session.waypost(["choices", "list"])
        #expect(listed.stdout.contains("scheme:people\tany opener\torg.example.Notes\tmade "), "\(listed)")
    }

    @Test("cancel: nothing is delivered and Open fails ChoiceCancelled")
    func cancel() async throws {
        let chooser = ScriptedChooser([.cancelled])
        let session = try await PeerDesktop(chooser: chooser)
        defer { session.close() }
        let bus = try await Self.both(session)
        let error = await #expect(throws: BusError.self) { _ = try await session.open("people://ada", with: bus) }
        #expect(error?.name.rawValue == "io.waypost.Error.ChoiceCancelled", "\(String(describing: error))")
        #expect(session.received(Self.notes.id).isEmpty && session.received(Self.contacts.id).isEmpty)
    }

    @Test("no chooser can be shown: Open fails AppNotChosen naming the candidates and the command that chooses")
    func noChooser() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let bus = try await Self.both(session)
        let error = await #expect(throws: BusError.self) { _ = try await session.open("people://ada", with: bus) }
        #expect(error?.name.rawValue == "io.waypost.Error.AppNotChosen")
        #expect(error?.message.contains("org.example.Contacts, org.example.Notes") == true, "\(String(describing: error))")
        #expect(error?.message.contains("waypost choices set scheme:people APP") == true, "\(String(describing: error))")
    }

    @Test("a slow pick: Open is answered \"choose\" when the wait is over, and the pick is delivered once when it comes")
    func latePick() async throws {
        let chooser = ScriptedChooser([Self.pick(Self.contacts.id)], holding: true)
        let session = try await PeerDesktop(chooser: chooser, chooserAnswerWait: .milliseconds(200))
        defer { session.close() }
        let bus = try await Self.both(session)
        let outcome = try await session.open("people://ada", with: bus)
        #expect(outcome["action"] == "choose", "\(outcome)")
        #expect(session.received(Self.contacts.id).isEmpty)
        try await chooser.release()
        try await waitUntil("the late pick reaches Contacts", context: session.busLog) { !session.received(Self.contacts.id).isEmpty }
        #expect(session.received(Self.contacts.id).count == 1)
        #expect(session.received(Self.notes.id).isEmpty)
    }

    @Test("one chooser at a time: a second ambiguous link waits for the first answer")
    func oneAtATime() async throws {
        let chooser = ScriptedChooser([Self.pick(Self.contacts.id), Self.pick(Self.notes.id)], holding: true)
        let session = try await PeerDesktop(chooser: chooser)
        defer { session.close() }
        let bus = try await Self.both(session)
        async let first = session.open("people://ada", with: bus)
        try await waitUntil("the first chooser is shown") { chooser.asked.count == 1 }
        async let second = session.open("people://bob", with: try await session.connect())
        // The second waits its turn: queued, and no second window while the first is on the screen.
        try await waitUntil("the second link waits for the chooser") { await session.dispatcher.choosers.waitingCount == 1 }
        #expect(chooser.asked.count == 1)
        try await chooser.release()
        #expect(try await first["app-id"] == Self.contacts.id)
        try await chooser.release()
        #expect(try await second["app-id"] == Self.notes.id)
        #expect(chooser.asked.count == 2)
    }

    @Test("an app that no longer declares the scheme loses its remembered choice: the user is asked again")
    func staleChoice() async throws {
        let chooser = ScriptedChooser([Self.pick(Self.notes.id, always: true), Self.pick(Self.contacts.id)])
        let session = try await PeerDesktop(chooser: chooser)
        defer { session.close() }
        let bus = try await Self.both(session)
        let third = SampleApp(
            "org.example.Third", schemes: ["people"], declarations: [("main", ["kind": "window-group"])], scenes: [("t1", "main", [([], ["*"])])])
        try await session.installApp(third)
        try await session.start(third)
        _ = try await session.open("people://ada", with: bus)
        // Notes drops the scheme.
        var dropped = Self.notes
        dropped.schemes = []
        try await session.installApp(dropped)
        let after = try await session.open("people://bob", with: bus)
        #expect(after["app-id"] == Self.contacts.id, "\(after)")
        #expect(chooser.asked.count == 2)
        #expect(chooser.asked.last?.candidates.map(\.app) == [Self.contacts.id, third.id])
        #expect(session.received(Self.notes.id).count == 1)
    }
}

/// A remembered choice naming a browser's window, carried out by the daemon: the browser is started
/// with its own arguments for that window (the real browsers take them in RealBrowserProfileTests).
@Suite("a choice naming a browser's window, carried out")
struct BrowserWindowChoiceTests {
    @Test("links no app takes open in a private window; one site's in the Work profile, found in Chromium's Local State")
    func privateAndProfile() async throws {
        let session = try await PeerDesktop { root in
            let data = root.appendingPathComponent("config/chromium")
            try FileManager.default.createDirectory(at: data.appendingPathComponent("Profile 1"), withIntermediateDirectories: true)
            try Data(#"{"profile": {"info_cache": {"Default": {"name": "Person 1"}, "Profile 1": {"name": "Work"}}}}"#.utf8)
                .write(to: data.appendingPathComponent("Local State"))
            try FileManager.default.createDirectory(at: root.appendingPathComponent("config/waypost"), withIntermediateDirectories: true)
            try "choice\tbrowser\t*\tchromium#private\t2026-12-01\nchoice\tsite:work.example\t*\tchromium#profile=Work\t2026-12-01\n"
                .write(to: root.appendingPathComponent("config/waypost/choices"), atomically: true, encoding: .utf8)
        }
        defer { session.close() }
        try await session.writeEntry(id: "chromium", """
            [Desktop Entry]
            Type=Application
            Name=Chromium
            Exec=/usr/bin/chromium %U
            MimeType=x-scheme-handler/http;x-scheme-handler/https;

            """)
        let bus = try await session.connect()
        let elsewhere = try await session.open("https://elsewhere.example/", with: bus)
        #expect(elsewhere["app-id"] == "chromium" && elsewhere["action"] == "fallback", "\(elsewhere)")
        let work = try await session.open("https://work.example/report", with: bus)
        #expect(work["app-id"] == "chromium", "\(work)")
        let launched = session.launches.withArguments.withLock { $0.map { "\($0.app) \($0.added) \($0.uris)" } }
        #expect(launched == [
            #"chromium ["--incognito"] ["https://elsewhere.example/"]"#,
            #"chromium ["--profile-directory=Profile 1"] ["https://work.example/report"]"#,
        ], "\(session.busLog)")
        let explained = try await PlanCarriedOutTests().explain("https://work.example/x", bus)
        #expect(explained["reason"]?.contains("your choice for work.example, made 2026-12-01: chromium, profile Work") == true, "\(explained)")
    }
}
