import Desktop

// Which app continues a user activity: the one place that decides it, for an opener's
// ContinueActivity, a saved activity picked in a desktop search, and whatever else hands an
// activity over (Handoff, shortcuts), so that no path gives one app's activity to another by accident.
extension Dispatcher {
    /// The participating app that continues an activity of `type`, by `continuer(…candidates:chosen:)`.
    /// - Parameter publisher: the app that published it (a saved activity's), nil when unknown.
    /// - Throws: `noHandler` when no app lists the type; `appNotChosen` when the user must choose.
    func continuer(ofActivityType type: String, publishedBy publisher: String?) throws(DispatchError) -> ApplicationEntry {
        let candidates = directory.applications(forActivityType: type)
        // The choice is read only when it decides, so a choice just made holds for the next activity.
        let needsChoice = candidates.count > 1 && !candidates.contains { $0.id == publisher }
        return try Self.continuer(
            ofActivityType: type, publishedBy: publisher, candidates: candidates,
            chosen: needsChoice ? directory.chosenApplicationID(forActivityType: type) : nil)
    }

    /// The policy, pure: the publisher, as long as its installed entry lists the type; else the one
    /// app that lists it; else the one the user chose among those that list it. Never an order of
    /// ids or of directories: with several apps and no choice, none gets it.
    /// - Parameters:
    ///   - candidates: the participating entries that list `type`.
    ///   - chosen: the desktop-file id the user chose for `type` (`ActivityChoice`); a choice of an
    ///     app that does not list the type is no choice.
    /// - Throws: `noHandler` when `candidates` is empty; `appNotChosen` when several remain and
    ///   the user chose none of them.
    static func continuer(
        ofActivityType type: String, publishedBy publisher: String?, candidates: [ApplicationEntry], chosen: String?
    ) throws(DispatchError) -> ApplicationEntry {
        if let publisher, let entry = candidates.first(where: { $0.id == publisher }) { return entry }
        if candidates.count == 1 { return candidates[0] }
        if let chosen, let entry = candidates.first(where: { $0.id == chosen }) { return entry }
        guard !candidates.isEmpty else {
            throw .noHandler(type, reason: "no installed app lists it in X-Waypost-Activity-Types")
        }
        throw .appNotChosen(activityType: type, candidates: candidates.map(\.id).sorted(), publisher: publisher)
    }
}
