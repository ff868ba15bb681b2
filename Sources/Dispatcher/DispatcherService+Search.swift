import DBus
import Desktop
import Logging
import Synchronization
import WaypostContract

// The desktops' searches, answered from saved activities (open handoff offers first): GNOME Shell's SearchProvider2 and
// KRunner's krunner1, each at its own path on the daemon's connection (so on its thread, as
// Dispatcher1 is). A slow provider stalls GNOME's overview: searches go to the store's readers,
// never blocking the connection.
extension DispatcherService {
    /// How many results a desktop search returns (the shells show a handful).
    static let desktopResults: UInt32 = 50

    /// On `served` (the bus, or a peer), answered on the dispatcher's thread.
    func exportSearchProviders(on served: Connection) throws {
        try served.export(Contract.SearchProvider2.objectPath, interfaces: [gnomeSearchProvider], executor: connection.executor)
        try served.export(Contract.KRunner1.objectPath, interfaces: [krunner], executor: connection.executor)
    }

    private var gnomeSearchProvider: Interface {
        typealias Members = Contract.SearchProvider2
        return Interface(
            Members.interface,
            methods: [
                serving.method(Members.getInitialResultSet) { call in
                    let (terms) = try call.arguments([String].self)
                    let offers = self.handoffResults(matching: terms).map(\.id)
                    return try call.reply(offers + (try await self.dispatcher.saved?.searchIDs(terms, limit: Self.desktopResults) ?? []))
                },
                serving.method(Members.getSubsearchResultSet) { call in
                    let (previous, terms) = try call.arguments([String].self, [String].self)
                    try Dispatcher.checkResultIDs(previous.count, of: Members.getSubsearchResultSet.name.rawValue)
                    // A fresh search, as GNOME's own app search answers: the previous results were
                    // cut at `desktopResults` (or empty, after a cancelled call), and the refined
                    // terms can only match a subset of what the shorter ones matched.
                    let offers = self.handoffResults(matching: terms).map(\.id)
                    return try call.reply(offers + (try await self.dispatcher.saved?.searchIDs(terms, limit: Self.desktopResults) ?? []))
                },
                serving.method(Members.getResultMetas) { call in
                    let (identifiers) = try call.arguments([String].self)
                    try Dispatcher.checkResultIDs(identifiers.count, of: Members.getResultMetas.name.rawValue)
                    let offers = self.handoffResults().filter { identifiers.contains($0.id) }
                    let metas = await offers + (self.dispatcher.saved?.resultMetas(identifiers.filter { !$0.hasPrefix(Self.handoffResultPrefix) }) ?? [])
                    return try call.reply(metas.map { meta in
                        var fields: [String: Variant] = [:]
                        fields.insert(Members.MetaKeys.id, meta.id)
                        fields.insert(Members.MetaKeys.name, meta.name)
                        fields.insert(Members.MetaKeys.description, meta.appName)
                        fields.insert(Members.MetaKeys.gicon, meta.icon)
                        return fields
                    })
                },
                serving.method(Members.activateResult) { call in
                    let (identifier, _, timestamp) = try call.arguments(String.self, [String].self, UInt32.self)
                    // GNOME Shell gives a timestamp, no token: on X11 the startup id convention carries
                    // it; on Wayland a token for this pick comes from the compositor.
                    let platform = LaunchPlatformData(
                        activationToken: await self.dispatcher.configuration.shellActionTokens.forReportedAction(),
                        desktopStartupID: "waypost-search_TIME\(timestamp)")
                    if try await self.acceptFromSearch(identifier, platform) { return try call.reply() }
                    try await self.continueFromSearch(identifier, platform, caller: call.sender)
                    return try call.reply()
                },
                serving.method(Members.launchSearch) { call in
                    // No window of our own shows more results.
                    try call.reply()
                },
            ])
    }

    private var krunner: Interface {
        typealias Members = Contract.KRunner1
        return Interface(
            Members.interface,
            methods: [
                serving.method(Members.actions) { call in try call.reply([Structure<String, String, String>]()) },
                serving.method(Members.match) { call in
                    let (query) = try call.arguments(String.self)
                    let results = try await self.dispatcher.saved?.searchIDs([query], limit: Self.desktopResults) ?? []
                    let metas = await self.handoffResults(matching: [query]) + (self.dispatcher.saved?.resultMetas(results) ?? [])
                    let matches = metas.enumerated().map { rank, meta in
                        var properties: [String: Variant] = [:]
                        properties["subtext"] = .string(meta.appName)
                        let relevance = 1 - Double(rank) / Double(metas.count + 1)
                        return Structure((meta.id, meta.name, meta.icon, Members.possibleMatch, relevance, properties))
                    }
                    return try call.reply(matches)
                },
                serving.method(Members.run) { call in
                    let (matchID, _) = try call.arguments(String.self, String.self)
                    let token = self.runnerToken.withLock { token in
                        defer { token = nil }
                        return token
                    }
                    let platform = LaunchPlatformData(activationToken: token, desktopStartupID: nil)
                    if try await self.acceptFromSearch(matchID, platform) { return try call.reply() }
                    try await self.continueFromSearch(matchID, platform, caller: call.sender)
                    return try call.reply()
                },
                serving.method(Members.teardown) { call in try call.reply() },
                serving.method(Members.config) { call in try call.reply([String: Variant]()) },
                serving.method(Members.setActivationToken) { call in
                    let (token) = try call.arguments(String.self)
                    self.runnerToken.withLock { $0 = token }
                    return try call.reply()
                },
            ])
    }

    /// Continues a saved activity picked in a desktop search; when that fails, the shells show
    /// nothing, so the user hears of it by a notification (and the log).
    private func continueFromSearch(_ id: String, _ platform: LaunchPlatformData, caller: BusName) async throws {
        do {
            _ = try await carried { () async throws(DispatchError) in
                try await self.dispatcher.continueSavedActivity(id: id, platformData: platform)
            }
        } catch let error as BusError {
            logger.error("a search result from \(caller) could not be continued: \(error.message)")
            await notifyUser("A search result could not be opened", error.message)
            throw error
        }
    }
}
