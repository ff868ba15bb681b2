public import Associations
public import ExternalEvents

/// An installed desktop entry, as far as a plan needs it.
public struct InstalledApp: Sendable, Hashable {
    /// The desktop-file id, without `.desktop`.
    public var id: String
    /// Whether it takes part in Waypost (`X-Waypost=true`): routed to its scenes, not started with the link.
    public var participates: Bool
    /// Whether a running process of it is handed links by `org.freedesktop.Application.Open`.
    public var isDBusActivatable: Bool

    public init(id: String, participates: Bool, isDBusActivatable: Bool = false) {
        (self.id, self.participates, self.isDBusActivatable) = (id, participates, isDBusActivatable)
    }
}

/// The desktop as a plan reads it: which entries handle what, in the user's order. The daemon answers
/// from GIO; tests from a value.
public protocol InstalledApps: Sendable {
    /// Participating handlers of a URL scheme, the user's preferred first.
    func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp]
    /// The scheme's non-participating handler (the user's choice before Waypost, else the desktop's),
    /// never the dispatcher's own entry.
    func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp?
    /// The browser for a web scheme: the one recorded by `install --web`, else the best installed
    /// handler; never an entry that would hand the link back to Waypost.
    func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp?
    /// The content type of a `file://` URI, told from its name; nil when it cannot be told.
    func contentType(ofFile uri: String) -> String?
    /// The app that opened `contentType` before Waypost took it over, else the desktop's choice.
    func documentHandler(forType contentType: String) -> InstalledApp?
    /// The installed entry with this id; nil when none is, or when it would hand links back to Waypost.
    func entry(id: String) -> InstalledApp?
    /// Participating entries that list an activity type.
    func applications(forActivityType type: String) -> [InstalledApp]
    /// The desktop-file id the user chose for an activity type, if any.
    func chosenApplicationID(forActivityType type: String) -> String?
    /// Every installed browser of a web scheme, the one `browser(forScheme:)` gives first.
    func browsers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp]
}

extension InstalledApps {
    public func browsers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] {
        try browser(forScheme: scheme).map { [$0] } ?? []
    }
}

/// Why the desktop could not be read (a scheme it rejects, a catalog that failed).
public struct CatalogFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The registered apps as a plan reads them.
public protocol RunningApps: Sendable {
    /// The app's scenes, when a process of it is ready (declared, and announced `Ready` if it said it
    /// would); nil when none is, so the app must be launched first.
    func readyRouter(of appID: String) -> SceneRouter?
}

/// What one decision reads, taken at once: the desktop, the registered apps, and who owns web links.
public struct Snapshot: Sendable {
    public var installed: any InstalledApps
    public var running: any RunningApps
    public var ownership: LinkOwnership
    /// The scheme whose links the dispatcher holds as Handoff offers (`waypost-handoff`); nil while
    /// it holds none (Handoff not started), when such a link is planned as any other.
    public var offerScheme: String?
    /// The user's remembered choices, and the apps whose links are off.
    public var choices: ChoiceBook

    public init(
        installed: any InstalledApps, running: any RunningApps, ownership: LinkOwnership, offerScheme: String? = nil,
        choices: ChoiceBook = ChoiceBook()
    ) {
        (self.installed, self.running, self.ownership, self.offerScheme) = (installed, running, ownership, offerScheme)
        self.choices = choices
    }
}

/// What the dispatcher already tried for this event and found would not take it: a plan made again
/// after a refusal leaves these out, so the event falls through to the next destination.
public struct Refusals: Sendable, Hashable {
    /// Open scenes that refused it or vanished, by app.
    public var scenes: [String: Set<String>] = [:]
    /// Apps (participating or not) that could not take it at all: launch failed, every process refused.
    public var apps: Set<String> = []

    public init() {}

    public var isEmpty: Bool { scenes.isEmpty && apps.isEmpty }
}
