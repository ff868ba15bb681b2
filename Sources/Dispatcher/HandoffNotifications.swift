public import Handoff
import Synchronization

/// Offers as the desktop's notifications, through the daemon's `NotificationPoster`: "From DEVICE:
/// continue ‘TITLE’" (the device as far as KDE Connect said, else what the offer is), the activity's
/// webpage or type below, one Continue action whose click (its activation token kept) accepts it.
///
/// What the server shows follows what is asked, one call at a time: each round first withdraws what
/// is shown and no longer wanted, then shows one wanted offer, oldest first. So the server never
/// shows more than the offers kept, and an offer replaced before its turn is never posted at all
/// (a flood costs the server nothing). One the user dismissed is not shown again.
public final class NotifiedOffers: OfferPresenter {
    let poster: NotificationPoster

    private struct Wanted {
        var offer: HandoffOffer
        var accept: @Sendable (String?) async -> Void
    }

    private struct State {
        var wanted: [String: Wanted] = [:]
        /// Offer id → the server's notification and the words it shows.
        var shown: [String: (id: NotificationID, summary: String)] = [:]
        var working = false
    }

    private let state = Mutex(State())

    public init(poster: NotificationPoster) { self.poster = poster }

    public func present(_ offer: HandoffOffer, accept: @escaping @Sendable (String?) async -> Void) {
        state.withLock { $0.wanted[offer.id] = Wanted(offer: offer, accept: accept) }
        work()
    }

    public func withdraw(_ offer: HandoffOffer) {
        state.withLock { $0.wanted[offer.id] = nil }
        work()
    }

    private func work() {
        let start = state.withLock { state in
            defer { state.working = true }
            return !state.working
        }
        if start { Task { await self.reconcile() } }
    }

    private enum Step {
        case close(NotificationID)
        case show(Wanted, replacing: NotificationID?)
        case done
    }

    private func reconcile() async {
        while true {
            let step: Step = state.withLock { state in
                if let (offer, shown) = state.shown.first(where: { state.wanted[$0.key] == nil }) {
                    state.shown[offer] = nil
                    return .close(shown.id)
                }
                let due = state.wanted.values.filter { state.shown[$0.offer.id]?.summary != $0.offer.summary }
                if let next = due.min(by: { (Int($0.offer.id) ?? 0) < (Int($1.offer.id) ?? 0) }) {
                    return .show(next, replacing: state.shown[next.offer.id]?.id)
                }
                state.working = false
                return .done
            }
            switch step {
            case .done: return
            case .close(let id): poster.withdraw(id)
            case .show(let wanted, let replacing): await show(wanted, replacing: replacing)
            }
        }
    }

    private func show(_ wanted: Wanted, replacing: NotificationID?) async {
        let offer = wanted.offer
        let content = DesktopNotification(
            appName: "Waypost", desktopEntry: "io.waypost.Dispatcher", icon: "emblem-shared", title: offer.summary,
            body: offer.detail, buttons: [(key: "continue", label: "Continue")],
            expireTimeout: Int32(clamping: max(1, offer.expiresAt - offer.receivedAt) * 1000))
        let posted = try? await poster.post(content, replacing: replacing) { [weak self] event in
            switch event {
            case .action(let key, let token) where key == "continue" || key == "default":
                Task { await wanted.accept(token) }
            case .closed:
                // Dismissed, expired on screen or acted on: not shown again.
                self?.state.withLock { state in
                    state.shown[offer.id] = nil
                    state.wanted[offer.id] = nil
                }
            default: break
            }
        }
        state.withLock { state in
            guard let posted else {
                // No server, or one not believed: listed only.
                state.wanted[offer.id] = nil
                state.shown[offer.id] = nil
                return
            }
            state.shown[offer.id] = (posted, offer.summary)
        }
    }
}
