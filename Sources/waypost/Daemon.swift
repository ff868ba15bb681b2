import ActivityStore
import ArgumentParser
import AssociationSources
import Browsers
internal import CMalloc
import DBus
import Desktop
import Dispatch
import Dispatcher
import Glibc
import Handoff
import Logging
import WaypostContract

/// `waypost daemon`: serves io.waypost.Dispatcher on the session bus until the bus goes away.
struct Daemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the dispatcher on the session bus (D-Bus activation starts it; logs go to stderr).")

    @Option(help: "Seconds a launched app has to register and declare its scenes.")
    var launchTimeout: Double = Settings().launchTimeout

    @Option(help: "Seconds an app has to acknowledge an event before it counts as failed.")
    var deliveryTimeout: Double = Settings().deliveryTimeout

    @Option(help: "Seconds an activity another device handed over stays on offer.")
    var handoffOfferSeconds: Int = Settings().handoffOfferSeconds

    @Flag(help: "Log every registration and routed event.")
    var verbose = false

    /// The options' values; the defaults are what D-Bus activation runs with.
    struct Settings {
        var launchTimeout: Double = 10
        var deliveryTimeout: Double = 5
        var handoffOfferSeconds = Int(OfferBook.lifetime)
        var verbose = false
    }

    func validate() throws {
        guard launchTimeout > 0, deliveryTimeout > 0 else {
            throw ValidationError("timeouts must be positive numbers of seconds")
        }
    }

    func run() async throws {
        try await Self.serve(Settings(
            launchTimeout: launchTimeout, deliveryTimeout: deliveryTimeout, handoffOfferSeconds: handoffOfferSeconds, verbose: verbose))
    }

    /// Whether the command line is `waypost daemon` alone, as D-Bus activation runs it: then it is
    /// served with the defaults and not parsed (the parser's reflection costs the session's first
    /// link about 1.5 ms of a static binary's start).
    static func isPlain(_ arguments: some Collection<String>) -> Bool { arguments.elementsEqual(["daemon"]) }

    /// Serves until the bus goes away.
    /// - Throws: `ExitCode(69)` when GIO or the session bus cannot be had, or the name is taken.
    static func serve(_ settings: Settings) async throws {
        let (launchTimeout, deliveryTimeout) = (settings.launchTimeout, settings.deliveryTimeout)
        let (handoffOfferSeconds, verbose) = (settings.handoffOfferSeconds, settings.verbose)
        // A fixed mmap threshold: glibc otherwise raises it after the first large block is freed,
        // and the router's rebuilt automatons (megabyte arrays, replaced on each merge) then come
        // from the heap, where the freed ones stay resident (dispatch-bench: 50 → 39 MiB at 10,000 scenes).
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        let level: Logger.Level = verbose ? .info : .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "waypost.daemon")
        let timeline = StartupTimeline(logger: logger)
        timeline.mark("run")
        var configuration = Dispatcher.Configuration()
        configuration.launchTimeout = .milliseconds(Int64(launchTimeout * 1000))
        configuration.deliveryTimeout = .milliseconds(Int64(deliveryTimeout * 1000))
        // Until the name, two halves side by side: the bus connect here, and in a task of its own the
        // desktop, which needs no bus. Without GIO the daemon could route nothing, so it must not take
        // the name: both are awaited before it.
        let desktopOpening = Task.detached { () async -> Result<DaemonDesktop, GIOLoadError> in
            do throws(GIOLoadError) { return .success(try await DaemonDesktop(logger: logger)) } catch { return .failure(error) }
        }
        let connection: Connection
        do { connection = try await Connection.session() } catch {
            printError("waypost daemon: cannot reach the session bus: \(error)")
            throw ExitCode(69)
        }
        timeline.mark("connected to the bus")
        let desktop: DaemonDesktop
        switch await desktopOpening.value {
        case .success(let opened): desktop = opened
        case .failure(let error):
            printError("waypost daemon: \(error)")
            throw ExitCode(69)
        }
        timeline.mark("desktop read")
        let (catalog, launcher, xdg, associations) = (desktop.catalog, desktop.launcher, desktop.xdg, desktop.associations)
        configuration.ownExecutable = try? RunningProgram.executable(ofProcess: getpid())
        // The chooser is this program's `choose`, a process of its own that loads GTK itself.
        configuration.chooser = configuration.ownExecutable.map { ChooserProcess(program: $0) }
        configuration.choiceFile = ChoiceFile(configHome: xdg.configHome)
        configuration.browserHomes = BrowserHomes(home: getenv("HOME").map { String(cString: $0) } ?? "", configHome: xdg.configHome)
        configuration.shellActionTokens = .compositor(
            waylandDisplay: getenv("WAYLAND_DISPLAY").map { String(cString: $0) }, logger: logger)
        // The runtime directory only: the record names this bus's connections, and ends with the session.
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
            configuration.registrationRecord = RegistrationRecord(runtimeDirectory: runtime)
        }
        let store = Self.activityStore(xdg, logger)
        let dispatcher = Dispatcher(
            connection: connection, directory: desktop.directory,
            launcher: ScopedLauncher(launcher, scopes: LaunchScopes(connection: connection, logger: logger)),
            contentTypes: desktop.contentTypes, webLinks: desktop.webLinks, store: store, configuration: configuration, logger: logger)
        let service = DispatcherService(connection: connection, dispatcher: dispatcher, logger: logger)
        // An app's dock menu goes with its desktop entry (after the handler above forgot the entries).
        await catalog.onChange { service.dock.withdrawMenusOfRemovedEntries() }
        service.readsUserRules { await associations.readUserRulesAgain() }
        Self.trimMemory { service.callsAnswered &+ UInt64(store?.accesses ?? 0) }
        let handoff = HandoffService(
            service: service, trustFile: xdg.configHome + "/waypost/handoff-trusted-devices",
            presenter: NotifiedOffers(poster: service.notifications.poster), offerLifetime: Int64(max(1, handoffOfferSeconds)), now: { Int64(time(nil)) })
        // Apps registered with a daemon before this one on this bus register again once the name is
        // taken. Read here, not on the connection's thread, where the dispatcher runs.
        if let record = configuration.registrationRecord, let bus = connection.serverID {
            await dispatcher.expectReturningApps(record.read(busID: bus))
        }
        do {
            try await handoff.start()
            timeline.mark("handoff started")
            try await service.start()
        } catch {
            printError("waypost daemon: \(error)")
            throw ExitCode(69)
        }
        timeline.mark("name taken")
        // Every entry's program, for the openers' walks: read after the name, beside the link that
        // started the daemon (whose budget and plan need none of them) rather than ahead of it.
        desktop.directory.readProgramsAhead()
        Task.detached {
            // After the link that started the daemon, in the common case: never ahead of it.
            try? await Task.sleep(for: Self.wholeTableDelay)
            await desktop.webLinks.whole()
            timeline.mark("web-link table whole")
            // Domains due now, then again as records fall due (about weekly; sooner after failures).
            while true {
                await associations.verifyDueDomains()
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        logger.notice("serving \(Contract.busName) as \(connection.uniqueName)")
        let reason = try await connection.waitUntilClosed()
        logger.notice("the bus went away (\(reason)); exiting")
    }

    /// How long after taking its name the daemon waits before reading every claim and association
    /// file unasked: the link that activated it is usually delivered by then.
    static let wholeTableDelay = Duration.seconds(1)

    /// Hands the heap's free pages back to the system once the daemon has been idle for a few
    /// seconds after work (`activity` stops moving). glibc keeps what a burst freed — in every
    /// thread's arena, in the middle of the heap — resident otherwise: SQLite's and FTS5's buffers
    /// (activity-bench: 41 MiB anonymous after 100,000 saves, 6 MiB once trimmed), and a flood's
    /// messages, tasks and automatons (Benchmarks/stress/memory.py; docs/delivery.md).
    static func trimMemory(activity: @escaping @Sendable () -> UInt64) {
        Task.detached(priority: .background) {
            var trimmedAt = activity()
            var previous = trimmedAt
            while true {
                try? await Task.sleep(for: .seconds(3))
                let now = activity()
                if now == previous, now != trimmedAt {
                    trimmedAt = now
                    _ = malloc_trim(0)
                }
                previous = now
            }
        }
    }

    /// `$XDG_STATE_HOME/waypost/activities.sqlite` (`~/.local/state` by default, as GLib resolves it).
    /// Without it the daemon still routes, and activities are current only, not saved: it says so in its log.
    static func activityStore(_ directories: XDGDirectories, _ logger: Logger) -> ActivityStore? {
        guard directories.stateHome.hasPrefix("/") else {
            logger.error("no state directory ($XDG_STATE_HOME or HOME): activities will not be saved")
            return nil
        }
        // Opened when an activity is first saved or asked for, on the store's own thread: a session
        // may never ask, and its first link should not share the start-up with SQLite.
        let path = directories.stateHome + "/waypost/activities.sqlite"
        return try? ActivityStore(path: path, opening: .onFirstUse) { line in logger.error("\(line)") }
    }
}
