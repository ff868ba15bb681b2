import DBus
import Desktop
import Logging

// Link notifications: a script's (or the user's) notification, posted by no app, whose click opens a
// link as `Open` would: the same plan, the server's activation token in the platform data.
extension Dispatcher {
    /// At most this many live across every caller: any connection may post one.
    static let liveLinkNotifications = 32

    /// Posts a notification whose click opens `uri`; returns its id (128 random bits).
    /// - Throws: `invalidArgument` for a title, body or URI over its bound; `budgetExceeded` with
    ///   32 live; `noHandler` without a notification server.
    func postLinkNotification(title: String, body: String, uri: String) async throws(DispatchError) -> String {
        if title.utf8.count > NotificationBudgets.titleBytes {
            throw .invalidArgument("title", reason: "\(title.utf8.count) bytes, over \(NotificationBudgets.titleBytes)")
        }
        if body.utf8.count > NotificationBudgets.bodyBytes {
            throw .invalidArgument("body", reason: "\(body.utf8.count) bytes, over \(NotificationBudgets.bodyBytes)")
        }
        _ = try URIGrammar.scheme(of: uri)
        if linkNotifications.count >= Self.liveLinkNotifications {
            throw .budgetExceeded(
                what: "live link notifications", app: "any caller", amount: linkNotifications.count + 1,
                limit: Self.liveLinkNotifications)
        }
        // 128 random bits as 32 hex digits: each half padded, so every id has the same length.
        let id = (0..<2).map { _ in
            let digits = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        let content = NotificationContent(
            appName: "Waypost", desktopEntry: configuration.ownEntryID, icon: "", title: title, body: body, buttons: [])
        // Held while posting, so that concurrent posts count against the 32 too.
        linkNotifications[id] = .some(nil)
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
            linkNotifications[id] = nil
            if case .noServer = error { throw .noHandler("link notification", reason: error.description) }
            throw .deliveryFailed("link notification", attempts: [error.description])
        }
        // Withdrawn while it was being posted: take it off the screen now.
        guard linkNotifications[id] != nil else {
            notificationPoster.withdraw(serverID)
            return id
        }
        linkNotifications[id] = serverID
        return id
    }

    /// Takes the link notification `id` off the screen; an id not live is ignored.
    func withdrawLinkNotification(_ id: String) {
        if let serverID = linkNotifications.removeValue(forKey: id) ?? nil { notificationPoster.withdraw(serverID) }
    }

    private func forgetLinkNotification(_ id: String) { linkNotifications[id] = nil }

    /// The click: `uri` opened once, reported as `Routed` and logged by the service.
    private func openLinkNotification(_ id: String, uri: String, token: String?) async {
        let route = { () async throws(DispatchError) -> Outcome in
            try await self.open(uri, platformData: LaunchPlatformData(activationToken: token))
        }
        guard let report = notificationReporter else {
            do { _ = try await route() } catch { logger.info("link notification \(id) reached nothing: \(error)") }
            return
        }
        await report(uri) { () async throws(DispatchError) -> Outcome in try await route() }
    }
}
