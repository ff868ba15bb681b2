import ActivityStore
import DBus
import Logging
import WaypostContract

// Plasma's task manager shows an app's recent resources from its activity manager (kactivitymanagerd),
// not from quicklists: the app's recent saved activities are registered there too, when it runs.
extension Dispatcher {
    static let activityManager: BusName = "org.kde.ActivityManager"
    static let activityManagerResources: ObjectPath = "/ActivityManager/Resources"
    static let resourcesInterface: InterfaceName = "org.kde.ActivityManager.Resources"

    /// The URI a saved activity is registered under; `Open` continues it as `ContinueSavedActivity`.
    static func savedActivityURI(_ id: String) -> String { "\(SavedActivityLink.scheme):\(id)" }

    /// The app saved an activity: Plasma's recent items hear of it a second later, once for every
    /// save made until then, so that an app saving a thousand a second costs the bus a few calls.
    func recentActivitiesChanged(of appID: String) {
        dockMenuChanged(of: appID)
        guard dockMenus.recentsDue.insert(appID).inserted else { return }
        Task {
            try? await Task.sleep(for: .seconds(1))
            dockMenus.recentsDue.remove(appID)
            await registerRecentActivities(of: appID)
        }
    }

    /// The app's most recently used saved activities as a dock's menu and Plasma's recent items show
    /// them (an id and a title, its type without one): `Budgets.Shortcuts.recentActivities` rows of
    /// the store read, no payload, however many the app saved. None when the store cannot say.
    func recentActivities(of appID: String) async -> [(id: String, title: String)] {
        guard let store = activities.store,
              let recent = try? await store.recent(appID: appID, limit: Budgets.Shortcuts.recentActivities)
        else { return [] }
        return recent.map { (String($0.id), $0.title.isEmpty ? $0.activityType : $0.title) }
    }

    /// Registers the app's most recently used saved activities (oldest first, so the newest is the
    /// most recent there too) with their titles; nothing when the activity manager is not on the
    /// bus (it is never started for this). Fire and forget: the manager's answer changes nothing here.
    func registerRecentActivities(of appID: String) async {
        guard (try? await connection.nameOwner(of: Self.activityManager)) != nil else { return }
        for (id, title) in await recentActivities(of: appID).reversed() {
            let uri = Self.savedActivityURI(id)
            // Event 0 is "Accessed" (KActivities::Event::Accessed).
            try? connection.send(
                destination: Self.activityManager, path: Self.activityManagerResources, interface: Self.resourcesInterface,
                member: "RegisterResourceEvent", appID, UInt32(0), uri, UInt32(0))
            try? connection.send(
                destination: Self.activityManager, path: Self.activityManagerResources, interface: Self.resourcesInterface,
                member: "RegisterResourceTitle", uri, title)
        }
    }
}

/// `x-waypost-activity:ID`: a saved activity as a link, for what opens links only (Plasma's recent
/// resources, which the task manager hands to the app's entry, and so through Waypost back here).
enum SavedActivityLink {
    static let scheme = "x-waypost-activity"

    /// The saved activity's id in `uri`, or nil when it is not such a link.
    static func id(in uri: String) -> String? {
        guard uri.hasPrefix(scheme + ":") else { return nil }
        let id = uri.dropFirst(scheme.count + 1)
        return !id.isEmpty && id.allSatisfy(\.isNumber) ? String(id) : nil
    }
}
