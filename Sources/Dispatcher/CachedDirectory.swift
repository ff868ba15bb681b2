public import Desktop
import Dispatch
import Synchronization

/// Remembers the desktop's answers (which app handles a scheme, an activity type, an entry by id)
/// until the installed applications or the user's defaults change.
///
/// Asking GIO parses desktop files each time, which costs more than routing and delivery together;
/// the daemon calls `invalidate()` from `ApplicationCatalog.onChange`. Errors are never remembered.
public final class CachedDirectory: ApplicationDirectory {
    private struct Answers {
        var generation: UInt64 = 0
        var handlers: [String: [ApplicationEntry]] = [:]
        var schemeEntries: [String: [ApplicationEntry]] = [:]
        var activities: [String: [ApplicationEntry]] = [:]
        var entries: [String: ApplicationEntry] = [:]
        var fallbacks: [String: ApplicationEntry?] = [:]
        var previousDefaults: [String: ApplicationEntry?] = [:]
        var typeHandlers: [String: ApplicationEntry?] = [:]
        var programs: [String: InstalledPrograms] = [:]
    }

    private let base: any ApplicationDirectory
    private let answers = Mutex(Answers())
    private let programsReading = Mutex(())
    /// Whether a reading ahead was started and has not ended, and who awaits its answer.
    private let readingAhead = Mutex<(underWay: Bool, waiters: [CheckedContinuation<InstalledPrograms, Never>])>((false, []))
    /// A thread of its own (a queue of ours gets one even while the global pool's are busy).
    private static let readerQueue = DispatchQueue(label: "waypost.installed-programs")

    public init(_ base: any ApplicationDirectory) { self.base = base }

    /// Forgets every answer; the next questions go to the desktop again.
    public func invalidate() {
        answers.withLock { $0 = Answers(generation: $0.generation + 1) }
    }

    public func handlers(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        try remembered(\.handlers, scheme) { () throws(CatalogError) in try base.handlers(forScheme: scheme) }
    }

    public func entries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        try remembered(\.schemeEntries, scheme) { () throws(CatalogError) in try base.entries(forScheme: scheme) }
    }

    /// Not remembered: asked only when associations are rebuilt, after a change.
    public func participatingEntries() -> [ApplicationEntry] { base.participatingEntries() }

    public func applications(forActivityType activityType: String) -> [ApplicationEntry] {
        remembered(\.activities, activityType) { base.applications(forActivityType: activityType) }
    }

    /// Not remembered: asked only when several apps could continue an activity, and a choice the
    /// user just made must hold for the next one (GIO rereads mimeapps.list when it changed).
    public func chosenApplicationID(forActivityType activityType: String) -> String? {
        base.chosenApplicationID(forActivityType: activityType)
    }

    public func entry(id: String) throws(CatalogError) -> ApplicationEntry {
        try remembered(\.entries, id) { () throws(CatalogError) in try base.entry(id: id) }
    }

    public func fallbackHandler(forScheme scheme: String, excluding excludedID: String?) throws(CatalogError) -> ApplicationEntry? {
        try remembered(\.fallbacks, "\(scheme) \(excludedID ?? "")") { () throws(CatalogError) in
            try base.fallbackHandler(forScheme: scheme, excluding: excludedID)
        }
    }

    public func previousDefault(forType contentType: String, excluding excludedID: String?) -> ApplicationEntry? {
        remembered(\.previousDefaults, "\(contentType) \(excludedID ?? "")") {
            base.previousDefault(forType: contentType, excluding: excludedID)
        }
    }

    public func fallbackHandler(forContentType contentType: String, excluding excludedID: String?) -> ApplicationEntry? {
        remembered(\.typeHandlers, "\(contentType) \(excludedID ?? "")") {
            base.fallbackHandler(forContentType: contentType, excluding: excludedID)
        }
    }

    /// Built once per change of the installed entries (it reads each program's `#!` line).
    /// Read each time (a shortcut is chosen by a person, rarely): the action's keys are the file's.
    public func shortcut(appID: String, action: String) throws(ShortcutLookupError) -> DesktopShortcut {
        try base.shortcut(appID: appID, action: action)
    }

    /// One reading at a time: a caller that comes while another reads waits for its answer instead
    /// of reading every entry again (the daemon starts one reading as it starts: `readProgramsAhead`).
    public func installedPrograms() -> InstalledPrograms {
        programsReading.withLock { _ in remembered(\.programs, "") { base.installedPrograms() } }
    }

    /// The remembered programs, or nil while they are not: then a reading starts on a thread of its
    /// own (unless one is under way), and the caller goes on without them.
    public func installedProgramsIfRead() -> InstalledPrograms? {
        if let known = answers.withLock({ $0.programs[""] }) { return known }
        readProgramsAhead()
        return nil
    }

    /// The programs, once read: a walk that needs them while they are read is suspended until that
    /// reading ends, holding no thread (the connection's would answer nobody meanwhile).
    public func installedProgramsWhenRead() async -> InstalledPrograms {
        if let known = answers.withLock({ $0.programs[""] }) { return known }
        return await withCheckedContinuation { waiter in readAhead(then: waiter) }
    }

    /// Reads `installedPrograms()` on a thread of its own, unless a reading ahead is under way: the
    /// first call of any connection would wait for its opener's walk (whom its calls count against),
    /// which needs them, as would a link that a rule naming openers decides.
    public func readProgramsAhead() { readAhead(then: nil) }

    /// Starts a reading ahead unless one is under way; `waiter` gets that reading's answer.
    private func readAhead(then waiter: CheckedContinuation<InstalledPrograms, Never>?) {
        let starts = readingAhead.withLock { reading in
            if let waiter { reading.waiters.append(waiter) }
            defer { reading.underWay = true }
            return !reading.underWay
        }
        guard starts else { return }
        Self.readerQueue.async {
            let programs = self.installedPrograms()
            let waiters = self.readingAhead.withLock { reading in
                defer { reading = (false, []) }
                return reading.waiters
            }
            for waiter in waiters { waiter.resume(returning: programs) }
        }
    }

    /// The remembered answer, or `ask()`'s, kept unless the desktop changed while it was asked.
    /// Inlined so that `table`, a literal at every call, becomes a plain field access instead of a
    /// key path projected at run time on every link.
    @inline(__always)
    private func remembered<Value: Sendable, Failure: Error>(
        _ table: WritableKeyPath<Answers, [String: Value]>, _ key: String, _ ask: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let (known, generation) = answers.withLock { ($0[keyPath: table][key], $0.generation) }
        if let known { return known }
        let value = try ask()
        answers.withLock { if $0.generation == generation { $0[keyPath: table][key] = value } }
        return value
    }
}
