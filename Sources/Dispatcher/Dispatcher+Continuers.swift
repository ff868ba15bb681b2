import Desktop
import ExternalEvents
import Planning

// Which app continues a user activity is the planner's decision (`Planner.continuer`), for an
// opener's ContinueActivity, a saved activity picked in a desktop search, and whatever else hands an
// activity over, so that no path gives one app's activity to another by accident. These read it
// for the entry itself (a search result's name and icon).
extension Dispatcher {
    /// The participating app in `directory` that continues an activity of `type`.
    /// - Parameter publisher: the app that published it (a saved activity's), nil when unknown.
    /// - Throws: `noHandler` when no app lists the type; `appNotChosen` when the user must choose.
    /// - Parameter choices: the user's remembered choices, read before a mimeapps.list default.
    static func continuer(
        ofActivityType type: String, publishedBy publisher: String?, in directory: any ApplicationDirectory,
        choices: ChoiceBook = ChoiceBook()
    ) throws(DispatchError) -> ApplicationEntry {
        try continuer(
            ofActivityType: type, publishedBy: publisher, candidates: directory.applications(forActivityType: type),
            chosen: choices.choice(for: .activityType(type), opener: nil)?.destination.app
                ?? directory.chosenApplicationID(forActivityType: type))
    }

    /// `Planner.continuer` over desktop entries.
    /// - Throws: `noHandler` when `candidates` is empty; `appNotChosen` when several remain and the
    ///   user chose none of them.
    static func continuer(
        ofActivityType type: String, publishedBy publisher: String?, candidates: [ApplicationEntry],
        chosen: @autoclosure () -> String?
    ) throws(DispatchError) -> ApplicationEntry {
        switch Planner.continuer(ofActivityType: type, publishedBy: publisher, candidates: candidates, id: { $0.id }, chosen: chosen) {
        case .success(let entry): return entry
        case .failure(let nowhere): throw error(nowhere, for: .activity(.init(type: type), publishedBy: publisher))
        }
    }
}
