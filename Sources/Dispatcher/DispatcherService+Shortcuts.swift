import DBus
import Desktop
import WaypostContract

// io.waypost.Dispatcher1's shortcut members.
extension DispatcherService {
    var shortcutMethods: [Method] {
        typealias Members = Contract.Dispatcher1
        return [
            // Anyone may ask, as anyone may run `gio launch --action`: the caller names an action of
            // the app's installed entry, never what it carries, and only that app gets it.
            serving.method(Members.performShortcut) { call in
                let (appID, action, platform) = try call.arguments(String.self, String.self, [String: Variant].self)
                let opener = self.opener(of: call.sender, platform)
                let outcome = try await self.carried { () async throws(DispatchError) in
                    try await self.dispatcher.performShortcut(
                        appID: appID, action: action, platformData: LaunchPlatformData(platform), opener: opener)
                }
                return try call.reply(outcome.contractOutcome(reason: false).properties)
            },
            serving.method(Members.setShortcutItems) { call in
                let (raw) = try call.arguments([[String: Variant]].self)
                let items = try raw.enumerated().map { index, item throws(DispatchError) in
                    try Self.read("shortcut item \(index)") { () throws(Contract.KeyError) in try Contract.ShortcutItem(item) }
                }
                try self.dock.setShortcutItems(app: try await self.dispatcher.appID(of: call.sender.rawValue), items)
                return try call.reply()
            },
            serving.method(Members.explainShortcut) { call in
                let (appID, action) = try call.arguments(String.self, String.self)
                do {
                    return try call.reply(
                        Outcome.explained(try await self.dispatcher.explainShortcut(appID: appID, action: action)).variants)
                } catch let error as DispatchError { throw error.busError }
            },
        ]
    }
}
