public import Handoff
import Synchronization

/// Offers as the desktop's notifications, through the daemon's `NotificationPoster`: "Continue ‘TITLE’
/// from DEVICE" (the device as far as KDE Connect said, else "unverified"), the activity's webpage or
/// type below, one Continue action whose click (its activation token kept) accepts the offer. It
/// stays until the offer expires, is accepted, or the user dismisses it.
public final class NotifiedOffers: OfferPresenter {
    let poster: NotificationPoster
    /// Offer id → what the server shows for it.
    private let shown = Mutex<[String: NotificationID]>([:])

    public init(poster: NotificationPoster) { self.poster = poster }

    public func present(_ offer: HandoffOffer, accept: @escaping @Sendable (String?) async -> Void) async {
        let seconds = max(1, offer.expiresAt - offer.receivedAt)
        let content = NotificationContent(
            appName: "Waypost", desktopEntry: "io.waypost.Dispatcher", icon: "emblem-shared", title: offer.summary,
            body: offer.payload.webpageURL ?? offer.payload.activityType, buttons: [(key: "continue", label: "Continue")],
            expireTimeout: Int32(clamping: seconds * 1000))
        let id = try? await poster.post(content, replacing: shown.withLock { $0[offer.id] }) { [weak self] event in
            switch event {
            case .action(let key, let token) where key == "continue" || key == "default":
                Task { await accept(token) }
            case .closed: self?.shown.withLock { $0[offer.id] = nil }
            default: break
            }
        }
        if let id { shown.withLock { $0[offer.id] = id } }
    }

    public func withdraw(_ offer: HandoffOffer) async {
        if let id = shown.withLock({ $0.removeValue(forKey: offer.id) }) { poster.withdraw(id) }
    }
}
