public import Handoff

/// Shows an offer to the user and takes it away again: the desktop's notification (with a Continue
/// action that accepts it) where a poster is plugged in; `waypost handoff list`, `accept` and the
/// desktop search show offers whatever the presenter. Both return at once: what is shown follows
/// what is asked, in order, so that no more is on screen than the offers kept.
public protocol OfferPresenter: Sendable {
    /// Shows `offer` (again, with its new words, when its origin changed); `accept` continues it with
    /// the activation token the click came with.
    func present(_ offer: HandoffOffer, accept: @escaping @Sendable (_ activationToken: String?) async -> Void)
    /// Takes a shown offer away (accepted, expired or replaced).
    func withdraw(_ offer: HandoffOffer)
}

/// No notification: offers are listed and searched only.
public struct ListedOffersOnly: OfferPresenter {
    public init() {}
    public func present(_ offer: HandoffOffer, accept: @escaping @Sendable (String?) async -> Void) {}
    public func withdraw(_ offer: HandoffOffer) {}
}
