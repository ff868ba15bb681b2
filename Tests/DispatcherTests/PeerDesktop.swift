import ActivityStore
import AssociationSources
import Browsers
import DBus
import Desktop
@testable import Dispatcher
import Foundation
import Glibc
import Logging
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// What a test drives a desktop through: the dispatcher behind a private bus (`DesktopSession`),
/// or in this process with no bus at all (`PeerDesktop`). Apps, openers and the checks of
/// PlanCheck.swift read the same either way.
protocol TestDesktop: AnyObject, Sendable {
    /// What the daemon (and, on a bus, the bus) logged, for failure messages.
    var busLog: String { get }
    /// A new connection to the dispatcher, as an app or an opener has.
    func connect() async throws -> Connection
    /// Installs a desktop entry as given.
    func writeEntry(id: String, _ text: String) async throws
    /// Installs a participating app that runs as `sample_app.py` behaves.
    @discardableResult func installApp(_ app: SampleApp) async throws -> SampleApp
    /// Starts a process of an installed app; returns once it registered, with the number events
    /// name it by (`pid` in its log).
    @discardableResult func start(_ app: SampleApp) async throws -> Int32
    /// What an app logged: one record per event received, plus `ready` at start.
    func events(of appID: String) -> [[String: Any]]
    /// Has a running app do what its UI would (`io.waypost.test.Control`'s members).
    func control(
        _ appID: String, pid: Int32?, with connection: Connection, _ member: MemberName, _ arguments: [String],
        modifiers: [([String], [String])]?) async throws
    func close()
}

extension TestDesktop {
    /// The events an app received (not counting `ready` lines).
    func received(_ appID: String) -> [[String: Any]] {
        events(of: appID).filter { $0["event"] as? String != "ready" }
    }

    /// Calls the dispatcher's `Open` as an opener would.
    func open(_ uri: String, with connection: Connection, platformData: [String: Variant] = [:]) async throws -> [String: String] {
        let reply = try await connection.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.open.name, uri, platformData, timeout: .seconds(30))
        return try DesktopSession.strings(reply.decode([String: Variant].self))
    }

    /// The dispatcher's `Status`: processes, and scenes in search order.
    func status(with connection: Connection) async throws -> (processes: [[String: String]], scenes: [[String: String]]) {
        let reply = try await connection.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.status.name)
        let (processes, scenes) = try reply.decode([[String: Variant]].self, [[String: Variant]].self)
        return (processes.map(DesktopSession.strings), scenes.map(DesktopSession.strings))
    }
}

/// The dispatcher in this test process with no bus: its service answers each app and opener on a
/// peer connection of its own (`Connection.pair`, `DispatcherService.serve(peer:)`), desktop
/// entries are real files read by GIO and kept as values (no data directories, no `mimeapps.list`:
/// a scheme's handlers in the order installed), and apps are `PeerApp`s behaving as
/// `sample_app.py` does, launched by the dispatcher as a launch would start them. For what needs
/// no bus: routing, delivery, scenes, activities. Everything the bus itself decides (who a process
/// is across programs, activation, names, other services) is `DesktopSession`'s.
final class PeerDesktop: TestDesktop {
    let root: URL
    let directory: PeerDirectory
    let dispatcher: Dispatcher
    let service: DispatcherService
    /// What the dispatcher launched (the apps' processes are started in process, as `PeerApp`s).
    let launches: PeerLaunches
    private let log: LogLines
    /// The dispatcher's own pair: it owns its name there, as on a bus; the other side is the first
    /// connection `connect()` hands out.
    private let spare = Mutex<Connection?>(nil)
    /// Every connection served, kept open until `close()`.
    private let connections = Mutex<[Connection]>([])
    private let apps = Mutex<[PeerApp]>([])
    private let configs = Mutex<[String: SampleApp]>([:])
    private let records = AppLog()
    private let nextProcess = Atomic<Int32>(1)

    /// Where the daemon's store of saved activities is (opened as the daemon starts).
    var storePath: URL { root.appendingPathComponent("activities.sqlite") }

    /// - Parameters: as `DesktopSession`'s: seconds the dispatcher waits for a launched app to
    ///   register, and for an app to acknowledge an event.
    /// - Parameter before: runs with the desktop's directory before the daemon starts.
    /// - Parameter chooser: the chooser window (a person's answers); nil: none can be shown.
    init(
        launchTimeout: Double = 5, deliveryTimeout: Double = 5, chooser: (any ChooserWindows)? = nil,
        chooserAnswerWait: Duration = .seconds(20), before: (URL) throws -> Void = { _ in }
    ) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-peers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("applications"), withIntermediateDirectories: true)
        try before(root)
        directory = PeerDirectory()
        let log = LogLines()
        self.log = log
        let logger = Logger(label: "waypost") { _ in CapturedLog(lines: log) }
        let (own, other) = try await Connection.pair()
        var configuration = Dispatcher.Configuration()
        configuration.launchTimeout = .milliseconds(Int(launchTimeout * 1000))
        configuration.deliveryTimeout = .milliseconds(Int(deliveryTimeout * 1000))
        configuration.chooser = chooser
        configuration.chooserAnswerWait = chooserAnswerWait
        configuration.choiceFile = ChoiceFile(configHome: root.appendingPathComponent("config").path)
        configuration.browserHomes = BrowserHomes(home: root.appendingPathComponent("home").path, configHome: root.appendingPathComponent("config").path)
        let launches = PeerLaunches()
        self.launches = launches
        let store = try ActivityStore(path: root.appendingPathComponent("activities.sqlite").path) { log.append("error: \($0)") }
        dispatcher = Dispatcher(
            connection: own, directory: directory, launcher: launches, contentTypes: nil, store: store,
            configuration: configuration, logger: logger)
        service = DispatcherService(connection: own, dispatcher: dispatcher, logger: logger)
        // Handoff as the daemon has it, with no KDE Connect to hear from.
        try await HandoffService(service: service, trustFile: nil, now: { Int64(time(nil)) }).start()
        try await service.start()
        spare.withLock { $0 = other }
        connections.withLock { $0 = [own, other] }
        launches.start = { [weak self] entry in
            guard let self else { return }
            Task { _ = try? await self.launch(entry.id) }
        }
    }

    func close() {
        for app in apps.withLock({ $0 }) { app.stop() }
        for connection in connections.withLock({ $0 }) { connection.close() }
        try? FileManager.default.removeItem(at: root)
    }

    deinit { close() }

    var busLog: String { log.text }

    /// A connection of its own to the dispatcher, served on the dispatcher's thread.
    func connect() async throws -> Connection {
        if let first = spare.withLock({ $0.take() }) { return first }
        let (served, connection) = try await Connection.pair()
        connections.withLock { $0 += [served, connection] }
        try await service.serve(peer: served)
        return connection
    }

    /// The desktop's notification server: on the dispatcher's own pair, whose other side it takes
    /// (call before the first `connect()`).
    func notificationServer() async throws -> PeerNotificationServer {
        guard let side = spare.withLock({ $0.take() }) else { throw TestFailure("the dispatcher's own pair is taken") }
        return try await PeerNotificationServer(on: side)
    }

    /// Runs `waypost` with HOME and the XDG directories under the desktop's root and no bus to
    /// reach (commands that only read and write files: install, uninstall).
    func waypost(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in ["PATH", "LANG", "LC_ALL", "TMPDIR"].contains(key) }
        for (key, directory) in [
            ("HOME", "home"), ("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"),
            ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "runtime"),
        ] {
            environment[key] = root.appendingPathComponent(directory).path
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + root.appendingPathComponent("no-bus").path
        let result = try await runProgram(DesktopSession.waypost.path, arguments, environment: environment)
        return (result.status, result.output, result.errors)
    }

    // MARK: Apps

    /// Writes the entry's file, then installs what GIO reads of it.
    func writeEntry(id: String, _ text: String) async throws {
        let file = root.appendingPathComponent("applications/\(id).desktop")
        try text.write(to: file, atomically: true, encoding: .utf8)
        guard let entry = try ApplicationEntry(file: file.path, id: id) else { throw TestFailure("GIO refuses \(file.path)") }
        directory.install(entry)
    }

    /// An entry that runs this test program, so that the app's connections (this process) are its.
    @discardableResult
    func installApp(_ app: SampleApp) async throws -> SampleApp {
        configs.withLock { $0[app.id] = app }
        let mimeTypes = app.schemes.map { "x-scheme-handler/\($0);" }.joined()
        var entry = """
            [Desktop Entry]
            Type=Application
            Name=\(app.id)
            Exec=\(InProcessApp.program)
            MimeType=\(mimeTypes)
            X-Waypost=\(app.participates)

            """
        if !app.activityTypes.isEmpty { entry += "X-Waypost-Activity-Types=\(app.activityTypes.joined(separator: ";"));\n" }
        try await writeEntry(id: app.id, entry)
        return app
    }

    @discardableResult
    func start(_ app: SampleApp) async throws -> Int32 {
        try await launch(app.id).process
    }

    /// Starts a `PeerApp` of an installed app, as the user or a launch would.
    private func launch(_ appID: String) async throws -> PeerApp {
        guard let config = configs.withLock({ $0[appID] }) else { throw TestFailure("\(appID) is not installed as a sample app") }
        let process = nextProcess.add(1, ordering: .relaxed).oldValue
        let app = try await PeerApp(config, process: process, connection: connect(), log: records)
        apps.withLock { $0.append(app) }
        // An app whose start fails exits, as sample_app.py does on an uncaught error.
        do { try await app.start() } catch {
            app.stop()
            throw error
        }
        return app
    }

    /// App process `process` ends, as when it is killed: its connection closes.
    func exit(_ process: Int32) {
        apps.withLock { $0.first { $0.process == process } }?.stop()
    }

    /// The running process of `appID` started first.
    func app(_ appID: String) throws -> PeerApp {
        guard let app = apps.withLock({ $0.first { $0.appID == appID && $0.isRunning } }) else {
            throw TestFailure("no running process of \(appID)")
        }
        return app
    }

    func events(of appID: String) -> [[String: Any]] { records.events(of: appID) }

    func control(
        _ appID: String, pid: Int32? = nil, with connection: Connection, _ member: MemberName, _ arguments: [String],
        modifiers: [([String], [String])]? = nil
    ) async throws {
        guard let app = apps.withLock({ $0.first { $0.appID == appID && (pid == nil || $0.process == pid) && $0.isRunning } }) else {
            throw TestFailure("no running process of \(appID)")
        }
        try await app.control(member, arguments, modifiers: modifiers ?? [])
    }
}

/// Installed desktop entries as values, in the order installed (`PeerDesktop`).
final class PeerDirectory: ApplicationDirectory {
    private let installed = Mutex<[ApplicationEntry]>([])

    func install(_ entry: ApplicationEntry) {
        installed.withLock { entries in
            entries.removeAll { $0.id == entry.id }
            entries.append(entry)
        }
    }

    private var entries: [ApplicationEntry] { installed.withLock { $0 } }

    func handlers(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        try entries(forScheme: scheme).filter(\.participates)
    }
    func entries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        guard scheme.first?.isLetter == true else { throw .invalidScheme(scheme) }
        return entries.filter { $0.declares(scheme: scheme) }
    }
    func participatingEntries() -> [ApplicationEntry] { entries.filter(\.participates).sorted { $0.id < $1.id } }
    func applications(forActivityType activityType: String) -> [ApplicationEntry] {
        entries.filter { $0.participates && $0.activityTypes.contains(activityType) }
    }
    func chosenApplicationID(forActivityType activityType: String) -> String? { nil }
    func entry(id: String) throws(CatalogError) -> ApplicationEntry {
        guard let entry = entries.first(where: { $0.id == id }) else { throw .notInstalled(applicationID: id) }
        return entry
    }
    func fallbackHandler(forScheme scheme: String, excluding excludedID: String?) throws(CatalogError) -> ApplicationEntry? {
        try entries(forScheme: scheme).first { !$0.participates && $0.id != excludedID }
    }
    func previousDefault(forType contentType: String, excluding excludedID: String?) -> ApplicationEntry? { nil }
    /// While held (`holdProgramsReading`), `installedPrograms()` waits for the release and
    /// `installedProgramsIfRead()` answers nil, as the daemon's cached directory does while it reads
    /// every entry of a large desktop.
    private let programsHeld = Mutex<DispatchSemaphore?>(nil)

    /// Holds the reading of the installed programs until the returned function is called.
    func holdProgramsReading() -> @Sendable () -> Void {
        let held = DispatchSemaphore(value: 0)
        programsHeld.withLock { $0 = held }
        return { [self] in
            programsHeld.withLock { $0 = nil }
            held.signal()
        }
    }

    func installedProgramsIfRead() -> InstalledPrograms? {
        programsHeld.withLock { $0 } == nil ? installedPrograms() : nil
    }

    func installedPrograms() -> InstalledPrograms {
        if let held = programsHeld.withLock({ $0 }) {
            held.wait()
            held.signal()
        }
        var signatures: [String: [ProgramSignature]] = [:]
        for entry in entries {
            let found = (try? InstalledPrograms.signatures(of: entry)) ?? []
            if !found.isEmpty { signatures[entry.id] = found }
        }
        return InstalledPrograms(signatures)
    }
    func fallbackHandler(forContentType contentType: String, excluding excludedID: String?) -> ApplicationEntry? { nil }
    func shortcut(appID: String, action: String) throws(ShortcutLookupError) -> DesktopShortcut {
        try DesktopShortcut.check(actionName: action)
        let found: ApplicationEntry
        do { found = try entry(id: appID) } catch { throw .catalog(error) }
        return try found.shortcut(action: action)
    }
}

/// The dispatcher's launches in a `PeerDesktop`: a `PeerApp` started for the entry, which
/// registers as a launched process does.
final class PeerLaunches: ApplicationLauncher {
    private let starting = Mutex<(@Sendable (ApplicationEntry) -> Void)?>(nil)
    /// Every launch with arguments added (a browser's profile or private window): entry, arguments, links.
    let withArguments = Mutex<[(app: String, added: [String], uris: [String])]>([])

    var start: (@Sendable (ApplicationEntry) -> Void)? {
        get { starting.withLock { $0 } }
        set { starting.withLock { $0 = newValue } }
    }

    func launch(_ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData) throws(LaunchError) -> [Int32] {
        start?(entry)
        return []
    }

    func launch(_ entry: ApplicationEntry, adding added: [String], uris: [String], platformData: LaunchPlatformData) throws(LaunchError) -> [Int32] {
        withArguments.withLock { $0.append((entry.id, added, uris)) }
        return []
    }
}

/// The daemon's log lines, kept for failure messages.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

private struct CapturedLog: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.append("\(event.level): \(event.message)") }
}

/// What `PeerApp`s logged, as `sample_app.py`'s JSON lines read: one record per event.
final class AppLog: Sendable {
    private let lines = Mutex<[String: [Data]]>([:])

    func append(_ appID: String, _ record: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { return }
        lines.withLock { $0[appID, default: []].append(data) }
    }

    func events(of appID: String) -> [[String: Any]] {
        lines.withLock { $0[appID] ?? [] }.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}
