import DBus
import Logging
import Synchronization
import WaypostContract

// Plasma's task manager shows an app's recent resources from its activity manager (kactivitymanagerd),
// not from quicklists: the app's recent saved activities are registered there too, when it runs.
extension DockMenuService {
    static let activityManager: BusName = "org.kde.ActivityManager"
    static let activityManagerResources: ObjectPath = "/ActivityManager/Resources"
    static let resourcesInterface: InterfaceName = "org.kde.ActivityManager.Resources"

    /// The app saved or deleted activities: its menu is made again at its next read, and Plasma's
    /// recent items hear of it a second later, once for every change made until then, so that an
    /// app saving a thousand a second costs the bus a few calls.
    func recentActivitiesChanged(of appID: String) {
        let due = menus.withLock { menus in
            menus.layouts[appID] = nil
            return menus.recentsDue.insert(appID).inserted
        }
        guard due else { return }
        Task {
            try? await Task.sleep(for: .seconds(1))
            menus.withLock { _ = $0.recentsDue.remove(appID) }
            await registerRecentActivities(of: appID)
        }
    }

    /// Registers the app's most recently used saved activities (oldest first, so the newest is the
    /// most recent there too) with their titles; nothing when the activity manager is not on the
    /// bus (it is never started for this). Fire and forget: the manager's answer changes nothing here.
    func registerRecentActivities(of appID: String) async {
        guard (try? await connection.nameOwner(of: Self.activityManager)) != nil else { return }
        for (id, title) in (await routing.saved?.recent(of: appID) ?? []).reversed() {
            let uri = SavedActivityLink.uri(id)
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
