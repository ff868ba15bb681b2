import ActivityStore
import DBus
import Desktop
import ExternalEvents
import Logging
import Planning
import WaypostContract

// Dynamic shortcut items and recent activities in the dock: each app's quicklist, a
// com.canonical.dbusmenu menu the daemon serves and announces with
// com.canonical.Unity.LauncherEntry.Update, as Ubuntu Dock, Dash to Dock and Plank read it.
extension Dispatcher {
    /// Replaces the caller's app's shortcut items and publishes its quicklist.
    /// - Throws: `notRegistered`; `budgetExceeded` over `Budgets.Shortcuts.items`; `invalidArgument` for
    ///   an empty or oversized field; `userInfoTooLarge`. Nothing changes when it throws.
    /// - Parameter export: serves the menu at the path given (the service's `dockMenuInterface`).
    func setShortcutItems(
        caller: String, _ items: [Contract.ShortcutItem], export: (_ appID: String, ObjectPath) throws -> Void
    ) throws(DispatchError) {
        let appID = try registry.registered(caller).appID
        guard items.count <= Budgets.Shortcuts.items else {
            throw .budgetExceeded(what: "shortcut items", app: appID, amount: items.count, limit: Budgets.Shortcuts.items)
        }
        for item in items {
            try Registry.check(id: item.type, what: "shortcut type")
            for field in [item.type, item.title, item.subtitle, item.icon, item.targetContentIdentifier].compactMap({ $0 }) {
                guard !field.isEmpty || field == item.subtitle, field.utf8.count <= Budgets.Shortcuts.fieldBytes else {
                    throw .invalidArgument(field, reason: "a shortcut item's fields are 1 to \(Budgets.Shortcuts.fieldBytes) bytes")
                }
            }
            let info = Variant(item.userInfo)
            guard info.size <= Budgets.Activities.userInfoBytes, info.nesting <= Budgets.Activities.userInfoNesting else {
                throw .userInfoTooLarge(activityType: item.type, reason: "a shortcut item's user info is bounded as an activity's")
            }
        }
        dockMenus.items[appID] = items
        dockMenuChanged(of: appID)
        publishDockMenu(of: appID, export: export)
    }

    /// Serves the app's menu (once) and tells docks where it is; tells them it changed when it was served.
    private func publishDockMenu(of appID: String, export: (String, ObjectPath) throws -> Void) {
        guard let path = DockMenus.path(of: appID) else { return }
        if dockMenus.entries[appID] == nil {
            do { try export(appID, path) } catch {
                logger.error("cannot serve the quicklist of \(appID): \(error)")
                return
            }
            dockMenus.entries[appID] = [:]
        } else {
            dockMenus.revision &+= 1
            try? connection.emit(
                path: path, interface: Contract.DBusMenu.interface, member: Contract.DBusMenu.layoutUpdated.name,
                dockMenus.revision, Int32(0))
        }
        announceQuicklist(of: appID, path)
        Task { await registerRecentActivities(of: appID) }
    }

    /// The app's menu goes once none of its processes is registered: docks are told it is empty.
    func withdrawDockMenuIfGone(_ appID: String) {
        guard !registry.processes.values.contains(where: { $0.appID == appID }) else { return }
        withdrawDockMenu(of: appID)
    }

    /// The menus of apps whose desktop entry was removed go too (GIO reported a change).
    public func withdrawDockMenusOfRemovedEntries() {
        for appID in dockMenus.entries.keys where (try? directory.entry(id: appID)) == nil { withdrawDockMenu(of: appID) }
    }

    private func withdrawDockMenu(of appID: String) {
        guard dockMenus.entries[appID] != nil, let path = DockMenus.path(of: appID) else { return }
        dockMenus.entries[appID] = nil
        dockMenus.items[appID] = nil
        dockMenuChanged(of: appID)
        connection.unexport(path)
        announceQuicklist(of: appID, nil)
    }

    private func announceQuicklist(of appID: String, _ path: ObjectPath?) {
        try? connection.emit(
            path: DockMenus.path(of: appID) ?? Contract.objectPath, interface: Contract.LauncherEntry.interface,
            member: Contract.LauncherEntry.update.name,
            "application://\(appID).desktop", ["quicklist": Variant(path?.rawValue ?? "")])
    }

    /// The menu's entries now: the shortcut items, then the app's most recently used saved activities.
    func dockMenu(of appID: String) async -> [DockMenuEntry] {
        var menu = (dockMenus.items[appID] ?? []).map(DockMenuEntry.shortcut)
        for (id, title) in await recentActivities(of: appID) { menu.append(.recent(id: id, title: title)) }
        return menu
    }

    /// The layout a dock reads (`GetLayout`); remembers what each id stands for. Made again once
    /// `DockMenus.layoutLifetime` has passed or the menu changed.
    func dockMenuLayout(of appID: String) async -> (UInt32, Structure<Int32, [String: Variant], [Variant]>) {
        if let made = dockMenus.layouts[appID], made.madeAt.duration(to: .now) < DockMenus.layoutLifetime {
            return (dockMenus.revision, made.root)
        }
        let (entries, root) = DockMenus.layout(await dockMenu(of: appID))
        guard dockMenus.entries[appID] != nil else { return (dockMenus.revision, root) }
        dockMenus.entries[appID] = entries
        dockMenus.layouts[appID] = (.now, entries, root)
        return (dockMenus.revision, root)
    }

    /// The app's menu is to be made again at its next read (its items, or its saved activities, changed).
    func dockMenuChanged(of appID: String) { dockMenus.layouts[appID] = nil }

    /// A click on an item: a shortcut item as `PerformShortcut` delivers, a recent activity continued.
    /// The dock gives the click's time and no token: on X11 the startup id convention carries the
    /// time; on Wayland a token for the click comes from the compositor.
    /// - Throws: `invalidArgument` for an id the menu's last layout did not have; what carrying the
    ///   event out throws.
    func chooseDockMenuItem(of appID: String, id: Int32, clickedAt timestamp: UInt32) async throws(DispatchError) -> Outcome {
        try await carry("dock:\(appID)/\(id)") { () async throws(DispatchError) in
            try await self.dockMenuItemEvent(of: appID, id: id, clickedAt: timestamp)
        }
    }

    /// The event a click on item `id` of `appID`'s quicklist carries: its shortcut, or its recent
    /// saved activity.
    private func dockMenuItemEvent(of appID: String, id: Int32, clickedAt timestamp: UInt32) async throws(DispatchError) -> Event {
        guard let entry = dockMenus.entries[appID]?[id] else {
            throw .invalidArgument(String(id), reason: "\(appID)'s quicklist had no such item when a dock last read it")
        }
        let platformData = LaunchPlatformData(
            activationToken: await configuration.shellActionTokens.forReportedAction(),
            desktopStartupID: "waypost-dock_TIME\(timestamp)")
        switch entry {
        case .shortcut(let item):
            let raw = item.activity
            let details: Contract.ActivityDetails
            do { details = try Contract.ActivityDetails(raw) } catch { throw DispatchError(error, in: "shortcut item \(item.type)") }
            let activity = UserActivity(type: item.type, details)
            return Event(planned: .shortcut(activity, app: appID), activity: raw, platformData: platformData)
        case .recent(let saved, _):
            return try await savedActivity(saved, platformData: platformData, opener: nil)
        }
    }

    /// An item's properties as the last layout read gave them; the root's for 0; nil for an unknown id.
    func dockMenuProperties(of appID: String, _ id: Int32) -> [String: Variant]? {
        if id == 0 { return ["children-display": Variant("submenu")] }
        return dockMenus.entries[appID]?[id].map(DockMenus.properties)
    }
}
