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
    func decide(url: String) -> OwnershipDecision {
        current.withLock { $0.decide(url: url) }
    }
}
