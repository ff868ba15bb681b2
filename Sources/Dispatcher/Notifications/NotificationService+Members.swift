import DBus
import Desktop
import WaypostContract

// io.waypost.Dispatcher1's notification members: an app posts, withdraws and explains its own
// notifications (acting as the app); any connection may post a link notification, within its share.
extension DispatcherService {
    var notificationMethods: [Method] {
        typealias Members = Contract.Dispatcher1
        return [
            serving.method(Members.postNotification) { call in
                let (id, raw) = try call.arguments(String.self, [String: Variant].self)
                let content = try Self.read("content") { () throws(Contract.KeyError) in try Contract.NotificationContent(raw) }
                let app = try await self.dispatcher.appID(of: call.sender.rawValue)
                try await self.notifications.post(app: app, id: id, content)
                return try call.reply()
            },
            serving.method(Members.withdrawNotifications) { call in
                let (ids) = try call.arguments([String].self)
                let app = try await self.dispatcher.appID(of: call.sender.rawValue)
                self.notifications.withdraw(app: app, ids: ids)
                return try call.reply()
            },
            serving.method(Members.postLinkNotification) { call in
                let (title, body, uri) = try call.arguments(String.self, String.self, String.self)
                let caller = await self.dispatcher.openers.holder(opener: self.opener(of: call.sender, [:]), sender: call.sender)
                return try call.reply(try await self.notifications.postLink(title: title, body: body, uri: uri, caller: caller))
            },
            serving.method(Members.withdrawLinkNotification) { call in
                let (id) = try call.arguments(String.self)
                self.notifications.withdrawLink(id)
                return try call.reply()
            },
            // Where a notification's click goes tells its target (a conversation, a document): the
            // app's own processes may ask, nobody else.
            serving.method(Members.explainNotification) { call in
                let (app, id) = try call.arguments(String.self, String.self)
                let own = try await self.dispatcher.appID(of: call.sender.rawValue)
                guard own == app else {
                    throw DispatchError.invalidArgument(app, reason: "an app explains only its own notifications; the caller is \(own)")
                }
                let plan = try await self.notifications.explain(app: app, id: id)
                return try call.reply(Outcome.explained(plan).variants)
            },
        ]
    }
}
