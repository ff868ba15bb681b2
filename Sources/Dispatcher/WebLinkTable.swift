public import Associations
import Synchronization

/// The universal-link ownership the dispatcher routes web links by. The daemon builds a new
/// `LinkOwnership` when entries, association files or verifications change and swaps it in whole,
/// so a link is always decided against one consistent table, and never waits for the rebuild.
public final class WebLinkTable: Sendable {
    private let current: Mutex<LinkOwnership>

    /// - Parameter ownership: the table to start with (none: every web link goes to the browser).
    public init(_ ownership: LinkOwnership = LinkOwnership(userRules: [], associations: [:], claims: [:])) {
        current = Mutex(ownership)
    }

    /// Replaces the table; links decided afterwards use the new one.
    public func replace(with ownership: LinkOwnership) {
        current.withLock { $0 = ownership }
    }

    /// The table in use now.
    public var ownership: LinkOwnership { current.withLock { $0 } }

    /// Who owns the link; one that is not a web link Waypost can match goes to the browser.
    /// nil only when the opener is `pending` and a rule naming openers decides.
    func decide(url: String, opener: OpenerFact) -> OwnershipDecision? {
        current.withLock { $0.decide(url: url, opener: opener) }
    }

    /// Who owns the link, the opener known (nil: no app known to have opened it).
    func decide(url: String, opener: String?) -> OwnershipDecision {
        current.withLock { $0.decide(url: url, opener: opener) }
    }

    /// What the user's rules say of a custom-scheme link.
    func decide(schemeLink url: String, opener: OpenerFact) -> SchemeRuling {
        current.withLock { $0.decide(schemeLink: url, opener: opener) }
    }
}
