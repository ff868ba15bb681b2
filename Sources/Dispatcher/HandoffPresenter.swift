public import Handoff

/// Shows an offer to the user and takes it away again: the desktop's notification (with a Continue
/// action that accepts it) where a poster is plugged in; `waypost handoff list`, `accept` and the
/// desktop search's top result show offers whatever the presenter.
public protocol OfferPresenter: Sendable {
    /// Shows `offer`; `accept` continues it with the activation token the click came with.
    func present(_ offer: HandoffOffer, accept: @escaping @Sendable (_ activationToken: String?) async -> Void) async
    /// Takes a shown offer away (accepted or expired).
    func withdraw(_ offer: HandoffOffer) async
}

/// No notification: offers are listed and searched only.
public struct ListedOffersOnly: OfferPresenter {
    public init() {}
    public func present(_ offer: HandoffOffer, accept: @escaping @Sendable (String?) async -> Void) async {}
    public func withdraw(_ offer: HandoffOffer) async {}
}
