import DBus
import Desktop
import Logging
import Planning
import Synchronization
import WaypostContract

/// Every notification the daemon shows, and the user's responses to them: apps' own (posted,
/// withdrawn and explained by a process of the app), link notifications any caller may post (a
/// click opens the link), and the daemon's own notices. Its own state and budgets
/// (`NotificationBook`, `LinkNotificationBook`); a response is carried by routing
/// (`Dispatcher.carry`), which knows nothing of notifications. Handoff offers are shown through
/// the same poster (HandoffNotifications.swift).
public final class NotificationService: Sendable {
    /// The desktop's notification server, as the daemon posts to it (NotificationPoster.swift).
    public let poster: NotificationPoster
    private let routing: Dispatcher
    private let logger: Logger
    private struct Books {
        var apps = NotificationBook()
        var links = LinkNotificationBook()
    }
    private let books = Mutex(Books())

    init(routing: Dispatcher, connection: Connection, tokens: ShellActionTokens, logger: Logger) {
        (self.routing, self.logger) = (routing, logger)
        poster = NotificationPoster(connection: connection, tokens: tokens, logger: logger)
    }

    // MARK: Apps' notifications

    /// Posts (or replaces) `app`'s notification `id`, under the app's name.
    /// - Throws: `invalidArgument` for a value over its bound; `budgetExceeded` over the app's live
    ///   notifications or bytes; `noHandler` without a notification server.
    func post(app: String, id: String, _ content: Contract.NotificationContent) async throws(DispatchError) {
        let bytes = try Budgets.Notifications.check(content, id: id)
        let key = NotificationBook.Key(app: app, id: id)
        let (replacing, serial) = try books.withLock { books throws(DispatchError) in
            let replacing = books.apps.posted[key]
            return (replacing, try books.apps.admit(key, bytes: bytes, target: content.targetContentIdentifier))
        }
        let name = (try? routing.directory.entry(id: app).name) ?? app
        let shown = DesktopNotification(
            appName: name, desktopEntry: app, icon: content.icon, title: content.title, body: content.body,
            buttons: content.buttons.map { (key: $0.action, label: $0.label) })
        let (target, userInfo) = (content.targetContentIdentifier, content.userInfo)
        let serverID: NotificationID
        do {
            serverID = try await poster.post(shown, replacing: replacing?.serverID) { [weak self] event in
                guard let self else { return }
                switch event {
                case .action(let action, let token):
                    let response = Contract.NotificationResponse(
                        notificationID: id, action: action, targetContentIdentifier: target, userInfo: userInfo)
                    Task { await self.respond(app: app, response, activationToken: token) }
                case .closed:
                    self.books.withLock { _ = $0.apps.forget(key, serial: serial) }
                }
            }
        } catch {
            books.withLock { _ = $0.apps.forget(key, serial: serial) }
            if case .noServer = error { throw .noHandler("notification \(id)", reason: error.description) }
            throw .deliveryFailed("notification \(id)", attempts: [error.description])
        }
        if !books.withLock({ $0.apps.shown(key, serial: serial, as: serverID) }) { poster.withdraw(serverID) }
    }

    /// Withdraws `app`'s notifications with these ids; other ids are ignored.
    func withdraw(app: String, ids: [String]) {
        for id in ids {
            guard let old = books.withLock({ $0.apps.forget(.init(app: app, id: id)) }) else { continue }
            if let serverID = old.serverID { poster.withdraw(serverID) }
            logger.info("\(app) withdrew its notification \(id) (on the server: \(old.serverID.map { "\($0)" } ?? "not yet"))")
        }
    }

    /// Carries out the plan for the user's response to `app`'s notification, once.
    private func respond(app: String, _ response: Contract.NotificationResponse, activationToken: String?) async {
        let target = response.targetContentIdentifier
        _ = try? await routing.carry("notification:\(app)/\(response.notificationID)") { () async throws(DispatchError) in
            Event(
                planned: .notificationResponse(app: app, targetContentIdentifier: target), notification: response,
                platformData: LaunchPlatformData(activationToken: activationToken))
        }
    }

    /// Where a click on `app`'s live notification `id` would go now, delivering nothing.
    /// - Throws: `noHandler` when the app has no live notification `id`.
    func explain(app: String, id: String) async throws(DispatchError) -> [Outcome] {
        guard let posted = books.withLock({ $0.apps.posted[.init(app: app, id: id)] }) else {
            throw .noHandler("notification \(id) of \(app)", reason: "\(app) has no live notification with that id")
        }
        return try await routing.explain(.notificationResponse(app: app, targetContentIdentifier: posted.targetContentIdentifier), opener: nil)
    }

    // MARK: Link notifications

    /// Posts a notification whose click opens `uri` as `Open` would, for `caller` (who asks, as the
    /// budgets name it); returns its id (128 random bits).
    /// - Throws: `invalidArgument` for a title, body or URI over its bound; `budgetExceeded` with the
    ///   caller's 8 or everyone's 32 live; `noHandler` without a notification server.
    func postLink(title: String, body: String, uri: String, caller: String) async throws(DispatchError) -> String {
        if title.utf8.count > Budgets.Notifications.titleBytes {
            throw .invalidArgument("title", reason: "\(title.utf8.count) bytes, over \(Budgets.Notifications.titleBytes)")
        }
        if body.utf8.count > Budgets.Notifications.bodyBytes {
            throw .invalidArgument("body", reason: "\(body.utf8.count) bytes, over \(Budgets.Notifications.bodyBytes)")
        }
        _ = try URIGrammar.scheme(of: uri)
        // 128 random bits as 32 hex digits: each half padded, so every id has the same length.
        let id = (0..<2).map { _ in
            let digits = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        // Held while posting, so that concurrent posts count against the bounds too.
        try books.withLock { books throws(DispatchError) in try books.links.reserve(id, for: caller) }
        let content = DesktopNotification(
            appName: "Waypost", desktopEntry: routing.configuration.ownEntryID, icon: "", title: title, body: body, buttons: [])
        let serverID: NotificationID
        do {
            serverID = try await poster.post(content) { [weak self] event in
                guard let self else { return }
                switch event {
                case .action(_, let token):
                    Task { _ = try? await self.routing.open(uri, platformData: LaunchPlatformData(activationToken: token)) }
                case .closed:
                    _ = self.books.withLock { $0.links.remove(id) }
                }
            }
        } catch {
            _ = books.withLock { $0.links.remove(id) }
            if case .noServer = error { throw .noHandler("link notification", reason: error.description) }
            throw .deliveryFailed("link notification", attempts: [error.description])
        }
        // Withdrawn while it was being posted: take it off the screen now.
        if !books.withLock({ $0.links.shown(id, as: serverID) }) { poster.withdraw(serverID) }
        return id
    }

    /// Takes the link notification `id` off the screen; an id not live is ignored.
    func withdrawLink(_ id: String) {
        if let serverID = books.withLock({ $0.links.remove(id) }) { poster.withdraw(serverID) }
    }

    // MARK: The daemon's own

    /// Shows the user a notice of the daemon's (a link that went nowhere) when a notification
    /// server is on the bus; fire and forget.
    func notice(_ summary: String, _ body: String) async {
        await poster.notice(DesktopNotification(appName: "Waypost", icon: "dialog-warning", title: summary, body: body))
    }
}
