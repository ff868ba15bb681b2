import DBus
import Desktop
import WaypostContract

// io.waypost.Dispatcher1's user-activity members: what scenes publish, what is saved, what openers read.
extension DispatcherService {
    var activityMethods: [Method] {
        typealias Members = Contract.Dispatcher1
        return [
            serving.method(Members.setCurrentActivity) { call in
                let (scene, type, raw) = try call.arguments(String.self, String.self, [String: Variant].self)
                let details = try Self.read("activity") { () throws(Contract.KeyError) in try Contract.ActivityDetails(raw) }
                try await self.dispatcher.setCurrentActivity(
                    caller: call.sender.rawValue, scene: scene, type: type, activity: raw, details: details)
                return try call.reply()
            },
            serving.method(Members.clearCurrentActivity) { call in
                let (scene) = try call.arguments(String.self)
                try await self.dispatcher.clearCurrentActivity(caller: call.sender.rawValue, scene: scene)
                return try call.reply()
            },
            // An app deletes only what its own processes saved (`notYours` for another app's).
            serving.method(Members.deleteSavedActivities) { call in
                let (identifiers) = try call.arguments([String].self)
                let appID = try await self.dispatcher.appID(of: call.sender.rawValue)
                for identifier in identifiers { try Registry.check(id: identifier, what: "persistent identifier") }
                try await self.dispatcher.saved?.forget(appID: appID, persistentIdentifiers: identifiers, all: false)
                return try call.reply()
            },
            serving.method(Members.deleteAllSavedActivities) { call in
                let appID = try await self.dispatcher.appID(of: call.sender.rawValue)
                try await self.dispatcher.saved?.forget(appID: appID, persistentIdentifiers: [], all: true)
                return try call.reply()
            },
            serving.method(Members.getCurrentActivity) { call in
                try call.reply(Contract.CurrentActivity.variants(await self.dispatcher.currentActivity))
            },
            serving.method(Members.monitorCurrentActivity) { call in
                if await self.dispatcher.announceCurrentActivity(to: call.sender) { self.forgetWhenGone(call.sender) }
                return try call.reply()
            },
            serving.method(Members.searchActivities) { call in
                let (terms, limit) = try call.arguments([String].self, UInt32.self)
                let results = try await self.dispatcher.saved?.search(terms, limit: limit) ?? []
                return try await Self.builtAway { try call.reply(results.map(\.variants)) }
            },
            serving.method(Members.listSavedActivities) { call in
                let (appID) = try call.arguments(String.self)
                let (results, _) = try await self.dispatcher.saved?.page(of: appID.isEmpty ? nil : appID, after: "", limit: 0) ?? ([], "")
                return try await Self.builtAway { try call.reply(results.map(\.variants)) }
            },
            serving.method(Members.listSavedActivitiesPage) { call in
                let (appID, after, limit) = try call.arguments(String.self, String.self, UInt32.self)
                let (results, next) = try await self.dispatcher.saved?.page(of: appID.isEmpty ? nil : appID, after: after, limit: limit) ?? ([], "")
                return try await Self.builtAway { try call.reply(results.map(\.variants), next) }
            },
            serving.method(Members.continueSavedActivity) { call in
                let (id, platform) = try call.arguments(String.self, [String: Variant].self)
                let outcome = try await self.carried { () async throws(DispatchError) in
                    try await self.dispatcher.continueSavedActivity(
                        id: id, platformData: LaunchPlatformData(platform), opener: self.opener(of: call.sender, platform))
                }
                return try call.reply(outcome.contractOutcome(reason: false).properties)
            },
            serving.method(Members.forgetSavedActivities) { call in
                let (appID, identifiers) = try call.arguments(String.self, [String].self)
                try Registry.check(id: appID, what: "app id")
                // The user's deletion (`waypost activities forget`): the app's activities with these
                // identifiers, or all of them.
                try await self.dispatcher.saved?.forget(appID: appID, persistentIdentifiers: identifiers, all: identifiers.isEmpty)
                return try call.reply()
            },
        ]
    }

    /// Reads a dictionary argument; one that breaks the contract is the caller's `InvalidArgument`.
    static func read<Value>(_ argument: String, _ read: () throws(Contract.KeyError) -> Value) throws(DispatchError) -> Value {
        do { return try read() } catch { throw DispatchError(error, in: argument) }
    }
}

extension DispatcherService {
    /// A reply of saved activities (up to 1 MiB) built off the connection's thread: marshalled there,
    /// a stranger's listings kept other apps' links waiting tens of milliseconds. Only the send is
    /// the thread's.
    static func builtAway(_ build: @escaping @Sendable () throws -> Reply) async throws -> Reply {
        try await Task.detached { try build() }.value
    }
}
