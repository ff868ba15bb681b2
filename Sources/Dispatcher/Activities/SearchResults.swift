import ActivityStore
import Desktop
import WaypostContract

// What the desktops' searches show of saved activities (DispatcherService+Search.swift serves them).

/// What a desktop search shows of one result.
struct ResultMeta: Sendable, Hashable {
    var id: String
    /// The activity's title (its type when it has none).
    var name: String
    /// The app that continues it when activated (`continuer`): its publisher, unless that can no
    /// longer; the publisher when nobody can.
    var appName: String
    /// That app's `Icon=`, else a generic application icon.
    var icon: String
}

extension Dispatcher {
    /// Refuses a desktop search's call carrying over `Contract.SearchProvider2.identifiersPerCall`
    /// result ids, before any is looked up (each costs a store read and a reply entry).
    /// - Throws: `invalidArgument` naming the count and the member.
    static func checkResultIDs(_ count: Int, of member: String) throws(DispatchError) {
        let limit = Contract.SearchProvider2.identifiersPerCall
        guard count <= limit else {
            throw .invalidArgument("\(count) result ids", reason: "\(member) takes at most \(limit) result ids per call")
        }
    }

}

extension SavedActivities {
    /// The metas of saved activities, in the order asked; ids that are not (or no longer) saved are
    /// left out. One read of the store for them all, of a row each and no payload.
    func resultMetas(_ identifiers: [String]) async -> [ResultMeta] {
        guard let summaries = try? await store.summaries(ids: identifiers.compactMap { Int64($0) }) else { return [] }
        let directory = directory
        let choices = choices.book
        return summaries.map { summary in
            let entry = (try? Dispatcher.continuer(ofActivityType: summary.activityType, publishedBy: summary.appID, in: directory, choices: choices))
                ?? (try? directory.entry(id: summary.appID))
            return ResultMeta(
                id: String(summary.id), name: summary.title.isEmpty ? summary.activityType : summary.title,
                appName: entry?.name ?? summary.appID, icon: entry?.icon ?? "application-x-executable")
        }
    }
}
