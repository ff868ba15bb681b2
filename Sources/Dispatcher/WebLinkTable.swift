public import Associations
import Synchronization

/// The universal-link ownership the dispatcher routes web links by. The daemon builds a new
/// `LinkOwnership` when entries, association files or verifications change and swaps it in whole,
/// so a link is always decided against one consistent table, and never waits for a rebuild.
///
/// The daemon starts with the user's rules alone (all a custom-scheme link reads), and builds the
/// whole table (every entry's claims, every association file) later: the first web link, or the
/// first question about owned domains, waits for that first build (`whole()`), never a later one.
public final class WebLinkTable: Sendable {
    private let current: Mutex<LinkOwnership>
    /// Until the first whole table: who waits for it, and what asks for it to be built.
    private let first = Mutex<FirstBuild>(FirstBuild())

    private struct FirstBuild {
        var done = true
        var asked = false
        var build: (@Sendable () -> Void)?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    /// The owned domains last announced, and who hears of a change (the service's signal).
    /// The rule sources whose decisions ran over budget, each logged once.
    private let overBudgetSources = Mutex<Set<String>>([])
    private let announced = Mutex<(domains: [String]?, observers: [@Sendable ([String]) -> Void])>((nil, []))

    /// - Parameter ownership: the table to start with (none: every web link goes to the browser).
    public init(_ ownership: LinkOwnership = LinkOwnership(userRules: [], associations: [:], claims: [:])) {
        current = Mutex(ownership)
    }

    /// A table that is not whole until the first `replace(with:)`: empty, then the user's rules
    /// (`replaceUserRulesOnly(with:)`); `builds(with:)` says how its first build is started.
    public init(wholeLater: Void) {
        current = Mutex(LinkOwnership(userRules: [], associations: [:], claims: [:]))
        first.withLock { $0 = FirstBuild(done: false) }
    }

    /// `build` starts the first build of a table made `wholeLater` (called once, by whoever first
    /// needs the whole table, or at once if one already asked).
    public func builds(with build: @escaping @Sendable () -> Void) {
        let now = first.withLock { state in
            guard !state.done else { return false }
            state.build = build
            return state.asked
        }
        if now { build() }
    }

    /// Replaces the user's rules of a table not yet whole (`init(wholeLater:)`); once the
    /// whole table is in, this does nothing (that table's rebuilds read the rules themselves).
    public func replaceUserRulesOnly(with ownership: LinkOwnership) {
        first.withLock { state in
            guard !state.done else { return }
            current.withLock { $0 = ownership }
        }
    }

    /// Whether the whole table is in (the first build finished).
    public var isWhole: Bool { first.withLock { $0.done } }

    /// Returns once the whole table is in, asking for its first build if nobody has yet.
    public func whole() async {
        guard !isWhole else { return }
        buildSoon()
        await withCheckedContinuation { continuation in
            let done = first.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    /// Starts the first build unless something asked for it already.
    public func buildSoon() {
        let build: (@Sendable () -> Void)? = first.withLock { state in
            guard !state.done, !state.asked else { return nil }
            state.asked = true
            return state.build
        }
        build?()
    }

    /// Replaces the table with a whole one; links decided afterwards use it.
    public func replace(with ownership: LinkOwnership) {
        let waiters = first.withLock { state in
            current.withLock { $0 = ownership }
            state.done = true
            state.build = nil
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        guard !announced.withLock({ $0.observers.isEmpty }) else { return }
        // Off the caller: listing owned domains compiles every association, which a rebuild defers.
        Task.detached(priority: .utility) { self.announceOwnedDomains() }
    }

    /// Calls `observer` with `ownedDomains` each time a replaced table changes them.
    public func onOwnedDomainsChange(_ observer: @escaping @Sendable ([String]) -> Void) {
        announced.withLock { $0.observers.append(observer) }
    }

    /// The host patterns under which some link may go to an app (`LinkOwnership.ownedDomains`).
    public var ownedDomains: [String] { ownership.ownedDomains }

    /// Tells the observers the domains of the table in use now, when they differ from the last told
    /// (two quick replaces may both get here: each reads the newest table, so the last word is right).
    private func announceOwnedDomains() {
        let domains = ownedDomains
        let observers: [@Sendable ([String]) -> Void] = announced.withLock { state in
            guard state.domains != domains else { return [] }
            state.domains = domains
            return state.observers
        }
        for observer in observers { observer(domains) }
    }

    /// The table in use now.
    public var ownership: LinkOwnership { current.withLock { $0 } }

    /// Who owns the link; one that is not a web link Waypost can match goes to the browser.
    /// nil only when the opener is `pending` and a rule naming openers decides.
    /// Decided outside the lock, on the table in use when the call began: a decision's cost never
    /// holds up another's, nor a `replace`.
    func decide(url: String, opener: OpenerFact) -> OwnershipDecision? {
        ownership.decide(url: url, opener: opener)
    }

    /// Who owns the link, the opener known (nil: no app known to have opened it).
    func decide(url: String, opener: String?) -> OwnershipDecision {
        ownership.decide(url: url, opener: opener)
    }

    /// What the user's rules say of a custom-scheme link.
    func decide(schemeLink url: String, opener: OpenerFact) -> SchemeRuling {
        ownership.decide(schemeLink: url, opener: opener)
    }

    /// True the first time a decision by `source` runs over its step budget: to log it once.
    public func isFirstOverBudget(_ source: RuleSource) -> Bool {
        overBudgetSources.withLock { $0.insert(source.description).inserted }
    }
}
