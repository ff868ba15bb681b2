import WaypostContract

// Deleting what the app's scenes saved for search (NSUserActivity's deleteSavedUserActivities).
extension Application {
    /// Deletes this app's saved activities with these persistent identifiers, so that the desktop's
    /// search no longer shows them. Identifiers nothing was saved under are ignored.
    /// - Throws: `notStarted`; `dispatcherRefused` (`NotOwner` when one is another app's: then
    ///   nothing is deleted).
    public func deleteSavedActivities(withPersistentIdentifiers identifiers: [String]) async throws(WaypostError) {
        // Publishes made before are saved first, so that this deletes them too.
        try? await synchronize()
        try await call(Contract.Dispatcher1.deleteSavedActivities, identifiers)
    }

    /// Deletes every activity this app saved for search.
    /// - Throws: `notStarted`; `dispatcherRefused`.
    public func deleteAllSavedActivities() async throws(WaypostError) {
        // Publishes made before are saved first, so that this deletes them too.
        try? await synchronize()
        try await call(Contract.Dispatcher1.deleteAllSavedActivities)
    }
}
