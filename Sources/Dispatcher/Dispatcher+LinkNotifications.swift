import DBus
import Desktop
import Logging

// Link notifications: a script's (or the user's) notification, posted by no app, whose click opens a
// link as `Open` would: the same plan, the server's activation token in the platform data.
extension Dispatcher {
    /// Posts a notification whose click opens `uri` for `caller` (the service's name for who asks);
    /// returns its id (128 random bits).
    /// - Throws: `invalidArgument` for a title, body or URI over its bound; `budgetExceeded` with the
    ///   caller's 8 or everyone's 32 live; `noHandler` without a notification server.
    func postLinkNotification(title: String, body: String, uri: String, caller: String) async throws(DispatchError) -> String {
        if title.utf8.count > NotificationBudgets.titleBytes {
            throw .invalidArgument("title", reason: "\(title.utf8.count) bytes, over \(NotificationBudgets.titleBytes)")
        }
        if body.utf8.count > NotificationBudgets.bodyBytes {
            throw .invalidArgument("body", reason: "\(body.utf8.count) bytes, over \(NotificationBudgets.bodyBytes)")
        }
        _ = try URIGrammar.scheme(of: uri)
        // 128 random bits as 32 hex digits: each half padded, so every id has the same length.
        let id = (0..<2).map { _ in
            let digits = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        // Held while posting, so that concurrent posts count against the bounds too.
        try linkNotifications.reserve(id, for: caller)
        let content = NotificationContent(
            appName: "Waypost", desktopEntry: configuration.ownEntryID, icon: "", title: title, body: body, buttons: [])
        let serverID: NotificationID
        do {
            serverID = try await notificationPoster.post(content) { [weak self] event in
                guard let self else { return }
                switch event {
                case .action(_, let token):
                    Task(executorPreference: self.connection.executor) { await self.openLinkNotification(id, uri: uri, token: token) }
                case .closed:
                    Task(executorPreference: self.connection.executor) { await self.forgetLinkNotification(id) }
                }
            }
        } catch {
            _ = linkNotifications.remove(id)
            if case .noServer = error { throw .noHandler("link notification", reason: error.description) }
            throw .deliveryFailed("link notification", attempts: [error.description])
        }
        // Withdrawn while it was being posted: take it off the screen now.
        if !linkNotifications.shown(id, as: serverID) { notificationPoster.withdraw(serverID) }
        return id
    }

    /// Takes the link notification `id` off the screen; an id not live is ignored.
    func withdrawLinkNotification(_ id: String) {
        if let serverID = linkNotifications.remove(id) { notificationPoster.withdraw(serverID) }
    }

    private func forgetLinkNotification(_ id: String) { _ = linkNotifications.remove(id) }

    /// The click: `uri` opened once, as `Open` would.
    private func openLinkNotification(_ id: String, uri: String, token: String?) async {
        _ = try? await open(uri, platformData: LaunchPlatformData(activationToken: token))
    }
}

/// The live link notifications, each with who posted it: any connection may post one, so there are
/// at most `live` together and `perCaller` of one caller (the opener's app, else the calling
/// process), so that no one script holds every slot.
struct LinkNotificationBook: Sendable {
    static let live = 32
    static let perCaller = 8

    private var entries: [String: (caller: String, serverID: NotificationID?)] = [:]
    private var counts: [String: Int] = [:]

    var count: Int { entries.count }

    /// Holds a slot for `id` while it is posted.
    /// - Throws: `budgetExceeded` naming the caller's or everyone's bound; nothing is held then.
    mutating func reserve(_ id: String, for caller: String) throws(DispatchError) {
        let own = counts[caller, default: 0]
        if own >= Self.perCaller {
            throw .budgetExceeded(what: "live link notifications", app: caller, amount: own + 1, limit: Self.perCaller)
        }
        if entries.count >= Self.live {
            throw .budgetExceeded(what: "live link notifications", app: "every caller", amount: entries.count + 1, limit: Self.live)
        }
        entries[id] = (caller, nil)
        counts[caller] = own + 1
    }

    /// Notes the server's id for `id`; false when it was withdrawn while being posted.
    mutating func shown(_ id: String, as serverID: NotificationID) -> Bool {
        guard entries[id] != nil else { return false }
        entries[id]?.serverID = serverID
        return true
    }

    /// Forgets `id`; the server's id when it was shown.
    mutating func remove(_ id: String) -> NotificationID? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        let left = counts[entry.caller, default: 1] - 1
        counts[entry.caller] = left == 0 ? nil : left
        return entry.serverID
    }
}
