public import ActivityStore
public import Browsers
public import DBus
public import Desktop
public import ExternalEvents
public import Logging
import Planning
public import AssociationSources
import Synchronization
import WaypostContract

/// The dispatcher's logic: who is registered, where each event goes, and handing it over exactly once.
///
/// An actor, so registrations and routing see one consistent registry; while it awaits an app's
/// answer it keeps serving others, including that app calling back (`AddScene` inside `CreateScene`).
/// An app that fails, vanishes or does not answer within `deliveryTimeout` is skipped for that
/// event, which falls through to the next destination the rules allow; the caller hears of every
/// failure when no destination is left.
///
/// It lives on its connection's thread (`ConnectionExecutor`): a call arrives, is routed, handed to
/// the app and answered with no thread hop. So nothing here blocks: launches run on a thread of
/// their own, and every wait is an `await`.
public actor Dispatcher {
    public struct Configuration: Sendable {
        /// How long a launched app has to register and declare its scenes.
        public var launchTimeout: Duration = .seconds(10)
        /// How long an app has to acknowledge an event.
        public var deliveryTimeout: Duration = .seconds(5)
        /// The dispatcher's own desktop entry, never a fallback handler.
        public var ownEntryID = Contract.busName.rawValue
        /// The daemon's own program: an entry that runs it is never a browser (no loop).
        public var ownExecutable: String?
        /// Tokens for the user's actions on the desktop's own surfaces, which report none.
        public var shellActionTokens = ShellActionTokens.none
        /// The chooser window shown when several apps could take an event; nil: none can be shown,
        /// and such an event is refused `AppNotChosen`.
        public var chooser: (any ChooserWindows)?
        /// Where remembered choices are kept; nil: in memory only.
        public var choiceFile: ChoiceFile?
        /// How long `Open` waits for the user's pick before answering "choose".
        public var chooserAnswerWait = Budgets.chooserAnswerWait
        /// Where browsers keep their profiles; nil: `$HOME` and `$XDG_CONFIG_HOME` of this process.
        public var browserHomes: BrowserHomes?
        /// Where registrations are kept for a daemon started after this one; nil: nowhere.
        public var registrationRecord: RegistrationRecord?
        public init() {}
    }

    let configuration: Configuration
    let connection: Connection
    let directory: any ApplicationDirectory
    let launcher: any ApplicationLauncher
    /// Which app a process is (RunningProcesses.swift).
    let processes: any RunningProcesses
    let logger: Logger
    let contentTypes: (any ContentTypeResolving)?
    /// Who owns each web domain (universal links); replaced whole by the daemon when it changes.
    let webLinks: WebLinkTable
    /// The desktop as plans read it, over `directory`: made once, so a plan's snapshot only retains it.
    let installedApps: any InstalledApps
    /// The connection each caller is reached through (CallerConnections.swift).
    public nonisolated let callers: CallerConnections
    /// Who opened each event (OpenerLookup.swift).
    public nonisolated let openers: OpenerLookup
    /// Where each event went, told to monitors and the log (RoutedReports.swift).
    nonisolated let reports: RoutedReports
    var registry: Registry
    // Launches in progress and who waits for them (Dispatcher+Launching.swift).
    var readyWaiters: [String: [Int: CheckedContinuation<Void, any Error>]] = [:]
    var nextWaiter = 0
    var launching: Set<String> = []
    // Processes registered with the daemon before this one, registering again, and the events
    // waiting for them (Dispatcher+Returning.swift).
    var returning: [String: String] = [:]
    var returningWaiters: [CheckedContinuation<Void, Never>] = []
    // Current activities and the store of saved ones (Dispatcher+Activities.swift).
    var activities = ActivityState()
    // Events waiting for each app, bounded (DeliveryQueue.swift).
    var deliveryQueues: [String: DeliveryQueue] = [:]
    // When each app last changed its sets, and the apps watched until they are quiet (Dispatcher+Merges.swift).
    var lastChange: [String: ContinuousClock.Instant] = [:]
    var quietWatches: Set<String> = []
    // How fast each app changes its sets (ChangeRate.swift).
    private var changeRates: [String: ChangeRate] = [:]
    // The process behind each registered connection (Dispatcher+Identity.swift).
    var identities = RegisteredIdentities()
    /// What the services that keep something per app are told as it happens: an app's last process
    /// left, its saved activities changed (`AppChanges`).
    public nonisolated let appChanges = AppChanges()
    /// What apps saved for search, read and deleted without routing (Activities/SavedActivities.swift).
    public nonisolated let saved: SavedActivities?
    /// What holds `waypost-handoff:` links as offers, once Handoff started (`attach(offers:)`).
    var offers: (any OfferTaking)?
    /// The user's remembered choices (Choices/ChoiceStore.swift).
    nonisolated let choices: ChoiceStore
    /// The chooser window, one at a time (Choices/Choosing.swift).
    nonisolated let choosers: Choosers

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        connection.executor.serial.asUnownedSerialExecutor()
    }

    /// - Parameter store: where search-eligible activities are saved; without one they are only current.
    public init(
        connection: Connection, directory: any ApplicationDirectory, launcher: any ApplicationLauncher,
        processes: any RunningProcesses = ProcessTable(), contentTypes: (any ContentTypeResolving)?,
        webLinks: WebLinkTable = WebLinkTable(), store: ActivityStore? = nil, configuration: Configuration = .init(),
        logger: Logger
    ) {
        self.connection = connection
        self.directory = directory
        self.launcher = launcher
        self.processes = processes
        self.configuration = configuration
        self.logger = logger
        self.contentTypes = contentTypes
        self.webLinks = webLinks
        registry = Registry(contentTypes: contentTypes)
        let choices = ChoiceStore(file: configuration.choiceFile)
        self.choices = choices
        choosers = Choosers(configuration.chooser)
        let callers = CallerConnections(bus: connection)
        self.callers = callers
        reports = RoutedReports(callers: callers, logger: logger)
        let changes = appChanges
        saved = store.map { SavedActivities(store: $0, directory: directory, choices: choices, changes: changes, logger: logger) }
        let (ownID, ownProgram) = (configuration.ownEntryID, configuration.ownExecutable)
        installedApps = DesktopApps(directory: directory, contentTypes: contentTypes, ownID: ownID, ownProgram: ownProgram)
        openers = OpenerLookup(callers: callers, directory: directory, processes: processes) { id in
            id == ownID || ((try? directory.entry(id: id)).map { DesktopApps.handsLinksBack($0, ownID: ownID, ownProgram: ownProgram) } ?? false)
        }
    }

    // MARK: Registration

    /// Registers the caller as a live process of `appID`, after checking that an installed,
    /// participating entry has that id and that the caller is a process of it (`checkIdentity`).
    func register(
        caller: BusName, appID: String, objectPath: ObjectPath, singleScene: Bool, announcesReady: Bool = false
    ) async throws(DispatchError) {
        let entry = try Self.registrable(appID, in: directory)
        // Usually told as the connection appeared (`OpenerLookup.watchConnections`): no round trip.
        let pid: UInt32
        if let told = await openers.processIDToldAtConnect(of: caller) { pid = told } else {
            do { pid = try await callers.connection(for: caller).processID(of: caller) } catch {
                throw .invalidArgument(caller.rawValue, reason: "the bus does not tell this connection's process: \(error)")
            }
        }
        let identified = try identifyForRegistration(caller: caller, pid: pid, of: entry)
        registry.register(
            owner: caller, appID: appID, objectPath: objectPath, pid: pid, singleScene: singleScene,
            announcesReady: announcesReady)
        hold(caller.rawValue, identified)
        recordRegistrations()
        logger.info("registered \(appID) as \(caller) (pid \(pid))")
    }

    /// The installed, participating entry `appID` names: what a process registering as it must run.
    /// - Throws: `invalidArgument` for a malformed id; `unknownApplication` for no such entry or one
    ///   that does not opt in.
    static func registrable(_ appID: String, in directory: any ApplicationDirectory) throws(DispatchError) -> ApplicationEntry {
        try Registry.check(id: appID, what: "app id")
        let entry: ApplicationEntry
        do { entry = try directory.entry(id: appID) } catch {
            throw .unknownApplication(appID, reason: error.description)
        }
        guard entry.participates else {
            throw .unknownApplication(appID, reason: "its desktop entry \(entry.filePath) does not opt in with X-Waypost=true")
        }
        return entry
    }

    /// - Throws: `budgetExceeded` over `Budgets`, checked before the declarations are built.
    func declare(caller: String, _ declared: [Contract.Declaration]) throws(DispatchError) {
        try Budgets.check(declared, app: try registry.registered(caller).appID)
        try registry.declare(owner: caller, declared.map(SceneDeclaration.init))
        if let process = registry.processes[caller], process.isReady {
            wakeLaunchWaiters(of: process.appID)
            returned(caller)
        }
        if let appID = registry.processes[caller]?.appID { mergeIfDue(appID) }
    }

    /// The app `caller` registered as, for what a process does as its app.
    /// - Throws: `notRegistered`.
    func appID(of caller: String) throws(DispatchError) -> String {
        try registry.registered(caller).appID
    }

    func ready(caller: String) throws(DispatchError) {
        try registry.markReady(owner: caller)
        if let process = registry.processes[caller], process.isReady {
            wakeLaunchWaiters(of: process.appID)
            returned(caller)
        }
    }

    func addScene(caller: String, scene: String, declaration: String) throws(DispatchError) {
        try registry.addScene(owner: caller, scene: scene, declaration: declaration)
        if let appID = registry.processes[caller]?.appID { mergeIfDue(appID) }
        currentActivityMayHaveChanged()
    }

    func removeScene(caller: String, scene: String) throws(DispatchError) {
        try registry.removeScene(owner: caller, scene: scene)
        if let appID = registry.processes[caller]?.appID { mergeIfDue(appID) }
        currentActivityMayHaveChanged()
    }

    func activateScene(caller: String, scene: String) throws(DispatchError) {
        try registry.activateScene(owner: caller, scene: scene)
        currentActivityMayHaveChanged()
    }

    /// Over the app's `ChangeRate` the change waits (its reply with it) until the rate has room,
    /// suspended, so other calls go on meanwhile; the caller's next call waits its turn behind it
    /// (`SenderTurns`), so one connection's changes are made in the order sent.
    /// - Throws: `budgetExceeded` over `Budgets`, `busy` when the wait would pass
    ///   `ChangeRate.longestWait`, both checked before any condition is sorted or folded; after a
    ///   wait, what the registry throws then (the scene closed, the caller left).
    func setModifiers(caller: String, scene: String, _ modifiers: [Contract.Modifier]) async throws(DispatchError) {
        let appID = try registry.ownedScene(scene, by: caller)
        let bytes = try Budgets.conditionBytes(ofScene: scene, app: appID, modifiers)
        _ = try registry.conditionBytes(ifScene: scene, of: caller, held: bytes)
        let now = ContinuousClock.now
        let wait = try changeRates[appID, default: ChangeRate(now: now)].admit(bytes, app: appID, now: now)
        if wait > .zero {
            logger.info("\(appID) changes its condition sets faster than \(ChangeRate.bytesPerSecond) bytes a second: a change waits \(Int(wait / .milliseconds(1))) ms")
            try? await Task.sleep(until: now + wait, clock: .continuous)
        }
        try registry.setModifiers(owner: caller, scene: scene, modifiers.map(EventPreference.init), bytes: bytes)
        mergeIfDue(appID)
    }

    /// The connection went away: its scenes vanish with it.
    func connectionVanished(_ owner: String) {
        forgetIdentity(of: owner)
        stopAnnouncingCurrentActivity(to: owner)
        returned(owner)
        if let process = registry.removeProcess(owner) { registrationGone(process, "\(process.appID) (\(owner)) went away") }
    }

    /// What goes with a registration, however it ended (its connection left, its process exited or
    /// ran another program first): the app's index is merged, the current activity told again, and
    /// the services told once no process of the app is left (its dock menu goes).
    func registrationGone(_ process: AppProcess, _ message: String, level: Logger.Level = .info) {
        recordRegistrations()
        mergeIfDue(process.appID)
        logger.log(level: level, "\(message)")
        currentActivityMayHaveChanged()
        if !registry.processes.values.contains(where: { $0.appID == process.appID }) { appChanges.tell(.gone(process.appID)) }
    }

    var status: (processes: [AppProcess], scenes: [SceneRecord]) {
        (registry.processes.values.sorted { $0.lastActive > $1.lastActive }, registry.scenes)
    }

    // MARK: Routing (delivery, launches and fallbacks are in the files named after them)

    /// Routes a URI to its app's scene and delivers it; returns once the app acknowledged. A
    /// saved activity's link (`x-waypost-activity:ID`) continues that activity.
    /// - Parameter prepare: called while an open scene's app handles the event, with the outcome
    ///   that acknowledgement will bring (again for each scene tried), so the caller can make its
    ///   answer ready off the path between the app's reply and its own.
    ///   - opener: who opened it, being found (`OpenerLookup`); nil when nobody asks.
    ///   - callerShowsPages: the caller is the browser: a web link no app takes is handed to no browser.
    public func open(
        _ uri: String, platformData: LaunchPlatformData, opener: PendingOpener? = nil, sender: BusName? = nil,
        callerShowsPages: Bool = false, prepare: (@Sendable (Outcome) -> Void)? = nil
    ) async throws(DispatchError) -> Outcome {
        try await carry(uri, opener: opener) { () async throws(DispatchError) in
            if let saved = SavedActivityLink.id(in: uri) {
                return try await self.savedActivity(saved, platformData: platformData, opener: opener)
            }
            return Event(
                planned: .link(uri, scheme: try URIGrammar.scheme(of: uri)), platformData: platformData, opener: opener,
                sender: sender, callerShowsPages: callerShowsPages, prepare: prepare)
        }
    }

    /// Routes a user activity to the app that continues its type (`Planner.continuer`), and delivers it.
    func continueActivity(
        _ activity: UserActivity, raw: [String: Variant], platformData: LaunchPlatformData, opener: PendingOpener? = nil
    ) async throws(DispatchError) -> Outcome {
        try await carry("activity:\(activity.type)", opener: opener) { () async throws(DispatchError) in
            try Registry.check(id: activity.type, what: "activity type")
            return Event(planned: .activity(activity, publishedBy: nil), activity: raw, platformData: platformData, opener: opener)
        }
    }
}

/// What the dispatcher tells the services that keep something per app (`Dispatcher.appChanges`).
public enum AppChange: Sendable, Equatable {
    /// No process of the app is registered any more.
    case gone(String)
    /// The app saved or deleted activities.
    case savedActivitiesChanged(String)
}

/// A service that keeps something per app (the dock's menus), told of each `AppChange` as it happens.
protocol AppChangeObserving: AnyObject, Sendable {
    /// Called on the thread of whoever made the change: quick, and it waits for nothing.
    func appChanged(_ change: AppChange)
}

/// Who is told of each `AppChange`: at once, in the changer's call. A publish tells it, and a stream
/// woke a listener for each publish (`make bench-activities`: publish/AddScene 1.40× against 1.29×).
public final class AppChanges: Sendable {
    private let observers = Mutex<[any AppChangeObserving]>([])

    func observe(_ observer: any AppChangeObserving) { observers.withLock { $0.append(observer) } }

    func tell(_ change: AppChange) {
        for observer in observers.withLock({ $0 }) { observer.appChanged(change) }
    }
}
