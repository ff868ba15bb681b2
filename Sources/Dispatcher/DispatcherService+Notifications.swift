import DBus
import WaypostContract

// io.waypost.Dispatcher1's notification members: an app posts and withdraws its own notifications
// (acting as the app), and anyone may ask where a click on one would go.
extension DispatcherService {
    var notificationMethods: [Method] {
        typealias Members = Contract.Dispatcher1
        return [
            method(Members.postNotification, .actsAsTheApp, inFlight: .few) { call in
                let (id, raw) = try call.arguments(String.self, [String: Variant].self)
                let content = try Self.read("content") { () throws(Contract.KeyError) in try Contract.NotificationContent(raw) }
                try await self.dispatcher.postNotification(caller: call.sender.rawValue, id: id, content)
                return try call.reply()
            },
            method(Members.withdrawNotifications, .actsAsTheApp, inFlight: .few) { call in
                let (ids) = try call.arguments([String].self)
                try await self.dispatcher.withdrawNotifications(caller: call.sender.rawValue, ids: ids)
                return try call.reply()
            },
            method(Members.postLinkNotification, .takesTurns, inFlight: .few) { call in
                let (title, body, uri) = try call.arguments(String.self, String.self, String.self)
                return try call.reply(try await self.dispatcher.postLinkNotification(title: title, body: body, uri: uri))
            },
            method(Members.withdrawLinkNotification, .takesTurns, inFlight: .few) { call in
                let (id) = try call.arguments(String.self)
                await self.dispatcher.withdrawLinkNotification(id)
                return try call.reply()
            },
            method(Members.explainNotification, .takesTurns, inFlight: .many) { call in
                let (app, id) = try call.arguments(String.self, String.self)
                return try call.reply(Outcome.explained(try await self.dispatcher.explainNotification(app: app, id: id)).variants)
            },
        ]
    }

    /// Reports each notification response the dispatcher carries out as `Routed`, and in the log.
    func reportNotificationResponses() async {
        await dispatcher.reportsNotificationResponses { label, route in
            _ = try? await self.routed(label) { () async throws(DispatchError) -> Outcome in try await route() }
        }
    }
}
