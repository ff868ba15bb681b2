import Associations
import DBus
import Desktop
import ExternalEvents
import Logging
import Planning
import WaypostContract

// An app's notifications: posted to the desktop's notification server through `NotificationPoster`
// under the app's name, and the user's response routed back to the app's scene by the rules
// (Planner's `.notificationResponse`), launching the app when it has exited meanwhile.
extension Dispatcher {
    /// Posts (or replaces) the caller's app's notification `id`.
    /// - Throws: `notRegistered`; `invalidArgument` for a value over its bound; `budgetExceeded`
    ///   over the app's live notifications or bytes; `noHandler` without a notification server.
    func postNotification(caller: String, id: String, _ content: Contract.NotificationContent) async throws(DispatchError) {
        let app = try registry.registered(caller).appID
        let bytes = try NotificationBudgets.check(content, id: id)
        let key = NotificationBook.Key(app: app, id: id)
        let replacing = notifications.posted[key]
        let serial = try notifications.admit(key, bytes: bytes, target: content.targetContentIdentifier)
        let name = (try? directory.entry(id: app).name) ?? app
        let shown = NotificationContent(
            appName: name, desktopEntry: app, icon: content.icon, title: content.title, body: content.body,
            buttons: content.buttons.map { (key: $0.action, label: $0.label) })
        let (target, userInfo) = (content.targetContentIdentifier, content.userInfo)
        let serverID: NotificationID
        do {
            serverID = try await notificationPoster.post(shown, replacing: replacing?.serverID) { [weak self] event in
                guard let self else { return }
                switch event {
                case .action(let action, let token):
                    let response = Contract.NotificationResponse(
                        notificationID: id, action: action, targetContentIdentifier: target, userInfo: userInfo)
                    // Started on the connection's thread, whose loop the dispatcher runs on.
                    Task(executorPreference: self.connection.executor) { await self.respond(app: app, response, activationToken: token) }
                case .closed:
                    Task(executorPreference: self.connection.executor) { await self.notificationClosed(key, serial: serial) }
                }
            }
        } catch {
            notifications.forget(key, serial: serial)
            if case .noServer = error { throw .noHandler("notification \(id)", reason: error.description) }
            throw .deliveryFailed("notification \(id)", attempts: [error.description])
        }
        if !notifications.shown(key, serial: serial, as: serverID) { notificationPoster.withdraw(serverID) }
    }

    /// Withdraws the caller's app's notifications with these ids; other ids are ignored.
    func withdrawNotifications(caller: String, ids: [String]) throws(DispatchError) {
        let app = try registry.registered(caller).appID
        for id in ids {
            guard let old = notifications.forget(.init(app: app, id: id)) else { continue }
            if let serverID = old.serverID { notificationPoster.withdraw(serverID) }
            logger.info("\(app) withdrew its notification \(id) (on the server: \(old.serverID.map { "\($0)" } ?? "not yet"))")
        }
    }

    private func notificationClosed(_ key: NotificationBook.Key, serial: UInt64) {
        notifications.forget(key, serial: serial)
    }

    /// Carries out the plan for the user's response to `app`'s notification, once.
    func respond(app: String, _ response: Contract.NotificationResponse, activationToken: String?) async {
        let target = response.targetContentIdentifier
        _ = try? await carry("notification:\(app)/\(response.notificationID)") { () async throws(DispatchError) in
            Event(
                planned: .notificationResponse(app: app, targetContentIdentifier: target), notification: response,
                platformData: LaunchPlatformData(activationToken: activationToken))
        }
    }

    /// Where a click on `app`'s live notification `id` would go now, delivering nothing; asked by a
    /// process of `app` only (the plan names the target: a conversation, a document).
    /// - Throws: `notRegistered`; `invalidArgument` when the caller is another app's; `noHandler`
    ///   when the app has no live notification `id`.
    func explainNotification(caller: String, app: String, id: String) throws(DispatchError) -> [Outcome] {
        let own = try registry.registered(caller).appID
        guard own == app else {
            throw .invalidArgument(app, reason: "an app explains only its own notifications; the caller is \(own)")
        }
        guard let posted = notifications.posted[.init(app: app, id: id)] else {
            throw .noHandler("notification \(id) of \(app)", reason: "\(app) has no live notification with that id")
        }
        return try explain(.notificationResponse(app: app, targetContentIdentifier: posted.targetContentIdentifier), opener: nil)
    }
}
