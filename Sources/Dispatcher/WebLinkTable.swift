public import Associations
import Synchronization

/// The universal-link ownership the dispatcher routes web links by. The daemon builds a new
/// `LinkOwnership` when entries, association files or verifications change and swaps it in whole,
/// so a link is always decided against one consistent table, and never waits for the rebuild.
public final class WebLinkTable: Sendable {
    private let current: Mutex<LinkOwnership>
    /// The owned domains last announced, and who hears of a change (the service's signal).
    /// The rule sources whose decisions ran over budget, each logged once.
    private let overBudgetSources = Mutex<Set<String>>([])
    private let announced = Mutex<(domains: [String]?, observers: [@Sendable ([String]) -> Void])>((nil, []))

    /// - Parameter ownership: the table to start with (none: every web link goes to the browser).
    public init(_ ownership: LinkOwnership = LinkOwnership(userRules: [], associations: [:], claims: [:])) {
        current = Mutex(ownership)
    }

    /// Replaces the table; links decided afterwards use the new one.
    public func replace(with ownership: LinkOwnership) {
        current.withLock { $0 = ownership }
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
