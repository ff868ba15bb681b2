public import ActivityStore
import DBus
import Desktop
import ExternalEvents
import Logging
import Planning
import WaypostContract

import Synchronization

/// The user activities apps saved, as the daemon reads and deletes them: searches, pages of the
/// listing, a saved activity as an event, the recent ones a dock shows. Each read is the store's
/// bounded one (ActivityStore+Reading.swift), payloads decoded off the connection's thread; none
/// goes through routing (`Dispatcher`), which only carries a saved activity out once it is an
/// `Event`. Publishing is routing's (it owns the scenes); what is saved changing is told on
/// `Dispatcher.appChanges`.
public final class SavedActivities: Sendable {
    public let store: ActivityStore
    let directory: any ApplicationDirectory
    private let logger: Logger
    private let changes: AppChanges
    /// The user's choices, for who continues a result whose publisher cannot.
    let choices: ChoiceStore

    init(store: ActivityStore, directory: any ApplicationDirectory, choices: ChoiceStore, changes: AppChanges, logger: Logger) {
        (self.store, self.directory, self.changes, self.logger) = (store, directory, changes, logger)
        self.choices = choices
    }

    /// Saved activities matching every word of `terms`, best first, within the store's bounds
    /// (`ActivityStore.search`); their payloads decoded off the connection's thread.
    /// - Throws: `invalidArgument` for too many terms or words, or a word too long.
    func search(_ terms: [String], limit: UInt32) async throws(DispatchError) -> [Contract.SavedActivity] {
        try Self.checkSearch(terms)
        let count = limit == 0 ? Budgets.Activities.defaultSearchResults : min(limit, Budgets.Activities.searchResults)
        let records: [SavedRecord]
        do { records = try await store.search(terms, limit: Int(count)) } catch { throw Self.searchFailure(error) }
        return await Self.contract(records, appNames: appNames(of: records), logger: logger)
    }

    /// `search`'s ids alone, for the desktop's search (no row read).
    func searchIDs(_ terms: [String], limit: UInt32) async throws(DispatchError) -> [String] {
        try Self.checkSearch(terms)
        do { return try await store.searchIDs(terms, limit: Int(min(limit, Budgets.Activities.searchResults))).map(String.init) } catch {
            throw Self.searchFailure(error)
        }
    }

    /// Counted before any term is read further: splitting into words costs per character, and a
    /// stranger flooding searches of 32 KiB kept the connection's thread from other apps' links.
    private static func checkSearch(_ terms: [String]) throws(DispatchError) {
        guard terms.count <= Budgets.Activities.searchTerms else {
            throw .invalidArgument("\(terms.count) terms", reason: "a search may have at most \(Budgets.Activities.searchTerms)")
        }
        let bytes = terms.reduce(0) { $0 + $1.utf8.count }
        guard bytes <= Budgets.Activities.searchBytes else {
            throw .invalidArgument("\(bytes) bytes of terms", reason: "a search's terms may hold at most \(Budgets.Activities.searchBytes) bytes")
        }
        for term in terms { try Registry.check(id: term.isEmpty ? " " : term, what: "search term") }
    }

    private static func searchFailure(_ error: StoreError) -> DispatchError {
        switch error {
        case .tooManyWords(let count, _): .invalidArgument("\(count) different words", reason: error.description)
        case .wordTooLong(let word, _): .invalidArgument(word, reason: error.description)
        default: .storeFailed(error.description)
        }
    }

    /// One page of the app's saved activities (every app's when nil), most recently used first:
    /// after `after` (the `next` of the page before; empty for the first), at most `limit` (0 or
    /// more than `Budgets.Activities.pageActivities`: that many).
    /// - Returns: the page, and the `next` that continues it (empty when nothing is left).
    /// - Throws: `invalidArgument` for an `after` no page gave.
    func page(of appID: String?, after: String, limit: UInt32) async throws(DispatchError) -> ([Contract.SavedActivity], next: String) {
        var cursor: Int64?
        if !after.isEmpty {
            guard after.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let recency = Int64(after) else {
                throw .invalidArgument(after, reason: "a page starts after the \"next\" of the page before, or after \"\" for the first")
            }
            cursor = recency
        }
        let count = limit == 0 ? Budgets.Activities.pageActivities : min(limit, Budgets.Activities.pageActivities)
        let page: SavedPage
        do { page = try await store.list(appID: appID, after: cursor, limit: Int(count)) } catch { throw .storeFailed(error.description) }
        return (await Self.contract(page.records, appNames: appNames(of: page.records), logger: logger), page.next.map(String.init) ?? "")
    }

    /// The saved activity `id` as an event, its publisher known.
    /// - Throws: `unknownActivity` for an id no saved activity has (now); `storeFailed` when it
    ///   cannot be read.
    func event(_ id: String, platformData: LaunchPlatformData, opener: PendingOpener?) async throws(DispatchError) -> Event {
        guard let row = Int64(id) else { throw .unknownActivity(id, reason: "a saved activity's id is a number") }
        let record: SavedRecord?
        do { record = try await store.record(id: row) } catch { throw .storeFailed(error.description) }
        guard let record else { throw .unknownActivity(id, reason: "it was deleted, or has expired") }
        let payload: ActivityPayload
        do { payload = try ActivityPayload.decode(record.payload, type: record.activityType, record.columns) } catch {
            throw .storeFailed("saved activity \(id) cannot be read: \(error)")
        }
        let raw = payload.variants
        let details: Contract.ActivityDetails
        do { details = try Contract.ActivityDetails(raw) } catch { throw DispatchError(error, in: "saved activity \(id)") }
        let activity = UserActivity(type: payload.type, details)
        try Registry.check(id: activity.type, what: "activity type")
        return Event(planned: .activity(activity, publishedBy: record.appID), activity: raw, platformData: platformData, opener: opener)
    }

    // MARK: Helpers

    /// The apps' names (`Name=`), looked up here, where the directory is read.
    private func appNames(of records: [SavedRecord]) -> [String: String] {
        Dictionary(Set(records.map(\.appID)).map { id in (id, (try? directory.entry(id: id).name) ?? id) }, uniquingKeysWith: { a, _ in a })
    }

    /// The records as the contract carries them, their payloads decoded off the connection's thread
    /// (a page is up to a megabyte of them); one that cannot be read is logged and left out.
    private static func contract(
        _ records: [SavedRecord], appNames: [String: String], logger: Logger
    ) async -> [Contract.SavedActivity] {
        records.compactMap { record in
            guard let payload = try? ActivityPayload.decode(record.payload, type: record.activityType, record.columns) else {
                logger.error("saved activity \(record.id) of \(record.appID) cannot be read; skipped")
                return nil
            }
            return Contract.SavedActivity(
                id: String(record.id), appID: record.appID, appName: appNames[record.appID] ?? record.appID,
                activityType: record.activityType, lastUsed: record.lastUsed, activity: payload.variants)
        }
    }
}

extension SavedActivities {
    /// The app's most recently used saved activities as a dock's menu and Plasma's recent items show
    /// them (an id and a title, its type without one): `Budgets.Shortcuts.recentActivities` rows of
    /// the store read, no payload, however many the app saved. None when the store cannot say.
    func recent(of appID: String) async -> [(id: String, title: String)] {
        guard let recent = try? await store.recent(appID: appID, limit: Budgets.Shortcuts.recentActivities) else { return [] }
        return recent.map { (String($0.id), $0.title.isEmpty ? $0.activityType : $0.title) }
    }

    /// Deletes `appID`'s saved activities with these persistent identifiers, or all of them.
    /// - Throws: `notYours` (deleting nothing) for an identifier only another app saved; `storeFailed`.
    func forget(appID: String, persistentIdentifiers: [String], all: Bool) async throws(DispatchError) {
        do {
            if all { try await store.deleteAll(appID: appID) } else {
                try await store.delete(appID: appID, persistentIdentifiers: persistentIdentifiers)
            }
        } catch {
            if case .notOwner(let identifier, let app) = error { throw .notYours(persistentIdentifier: identifier, app: app) }
            throw .storeFailed(error.description)
        }
        changes.tell(.savedActivitiesChanged(appID))
    }
}

/// `x-waypost-activity:ID`: a saved activity as a link, for what opens links only (Plasma's recent
/// resources, which the task manager hands to the app's entry, and so through Waypost back here).
enum SavedActivityLink {
    static let scheme = "x-waypost-activity"

    /// The link of saved activity `id` (Plasma's recent resources are registered under it).
    static func uri(_ id: String) -> String { "\(scheme):\(id)" }

    /// The saved activity's id in `uri`, or nil when it is not such a link.
    static func id(in uri: String) -> String? {
        guard uri.hasPrefix(scheme + ":") else { return nil }
        let id = uri.dropFirst(scheme.count + 1)
        return !id.isEmpty && id.allSatisfy(\.isNumber) ? String(id) : nil
    }
}
