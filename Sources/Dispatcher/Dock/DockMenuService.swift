import DBus
import Desktop
import ExternalEvents
import Logging
import Planning
import Synchronization
import WaypostContract

/// Each app's dynamic shortcut items and its dock quicklist: a com.canonical.dbusmenu menu the
/// daemon serves and announces with com.canonical.Unity.LauncherEntry.Update, as Ubuntu Dock, Dash
/// to Dock and Plank read it, its shortcut items then its recent saved activities; and those recent
/// activities registered with Plasma's activity manager (RecentActivities.swift). Its own state and
/// budgets (`DockMenus`, `Budgets.Shortcuts`); a click is an `Event` carried by routing
/// (`Dispatcher.carry`), which knows nothing of docks. It hears from routing when an app's last
/// process left, or the app's saved activities changed (`Dispatcher.appChanges`).
public final class DockMenuService: Sendable, AppChangeObserving {
    let routing: Dispatcher
    let connection: Connection
    let logger: Logger
    /// How the members are served (MemberServing.swift), as every service's are.
    let serving: MemberServing
    let menus = Mutex(DockMenus())

    init(routing: Dispatcher, connection: Connection, serving: MemberServing, logger: Logger) {
        (self.routing, self.connection, self.serving, self.logger) = (routing, connection, serving, logger)
        routing.appChanges.observe(self)
    }

    /// Replaces `appID`'s shortcut items and publishes its quicklist.
    /// - Throws: `budgetExceeded` over `Budgets.Shortcuts.items`; `invalidArgument` for an empty or
    ///   oversized field; `userInfoTooLarge`. Nothing changes when it throws.
    func setShortcutItems(app appID: String, _ items: [Contract.ShortcutItem]) throws(DispatchError) {
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
        guard let path = DockMenus.path(of: appID) else { return }
        // Marked served before it is exported, so that two processes of the app setting items at
        // once export it once.
        let revision: UInt32? = menus.withLock { menus in
            menus.items[appID] = items
            menus.layouts[appID] = nil
            guard menus.entries[appID] != nil else {
                menus.entries[appID] = [:]
                return nil
            }
            menus.revision &+= 1
            return menus.revision
        }
        if let revision {
            for served in routing.callers.served {
                try? served.emit(
                    path: path, interface: Contract.DBusMenu.interface, member: Contract.DBusMenu.layoutUpdated.name, revision, Int32(0))
            }
        } else {
            do { try connection.export(path, interfaces: [menuInterface(appID)], executor: connection.executor) } catch {
                logger.error("cannot serve the quicklist of \(appID): \(error)")
                menus.withLock { $0.entries[appID] = nil }
                return
            }
            for peer in routing.callers.served.dropFirst() { try? export(appID, path, on: peer) }
        }
        announceQuicklist(of: appID, path)
        Task { await registerRecentActivities(of: appID) }
    }

    /// The menus of apps whose desktop entry was removed go too (GIO reported a change).
    public func withdrawMenusOfRemovedEntries() {
        for appID in menus.withLock({ Array($0.entries.keys) }) where (try? routing.directory.entry(id: appID)) == nil {
            withdraw(appID)
        }
    }

    /// The app's menu goes (its last process left, or its entry did): docks are told it is empty.
    func withdraw(_ appID: String) {
        guard let path = DockMenus.path(of: appID), menus.withLock({ menus in
            guard menus.entries[appID] != nil else { return false }
            menus.entries[appID] = nil
            menus.items[appID] = nil
            menus.layouts[appID] = nil
            return true
        }) else { return }
        for served in routing.callers.served { served.unexport(path) }
        announceQuicklist(of: appID, nil)
    }

    /// Serves the menus there are on a peer too (`DispatcherService.serve(peer:)`).
    func serve(peer: Connection) {
        for appID in menus.withLock({ Array($0.entries.keys) }) {
            guard let path = DockMenus.path(of: appID) else { continue }
            try? export(appID, path, on: peer)
        }
    }

    private func export(_ appID: String, _ path: ObjectPath, on served: Connection) throws {
        try served.export(path, interfaces: [menuInterface(appID)], executor: connection.executor)
    }

    private func announceQuicklist(of appID: String, _ path: ObjectPath?) {
        for served in routing.callers.served {
            try? served.emit(
                path: DockMenus.path(of: appID) ?? Contract.objectPath, interface: Contract.LauncherEntry.interface,
                member: Contract.LauncherEntry.update.name,
                "application://\(appID).desktop", ["quicklist": Variant(path?.rawValue ?? "")])
        }
    }

    /// The layout a dock reads (`GetLayout`); remembers what each id stands for. Made again once
    /// `DockMenus.layoutLifetime` has passed or the menu changed: the shortcut items, then the
    /// app's most recently used saved activities.
    func layout(of appID: String) async -> (UInt32, Structure<Int32, [String: Variant], [Variant]>) {
        let (cached, items) = menus.withLock { menus in
            let made = menus.layouts[appID].flatMap { $0.madeAt.duration(to: .now) < DockMenus.layoutLifetime ? $0 : nil }
            return (made.map { (menus.revision, $0.root) }, menus.items[appID] ?? [])
        }
        if let cached { return cached }
        var menu = items.map(DockMenuEntry.shortcut)
        for (id, title) in await routing.saved?.recent(of: appID) ?? [] { menu.append(.recent(id: id, title: title)) }
        let (entries, root) = DockMenus.layout(menu)
        return menus.withLock { menus in
            guard menus.entries[appID] != nil else { return (menus.revision, root) }
            menus.entries[appID] = entries
            menus.layouts[appID] = (.now, entries, root)
            return (menus.revision, root)
        }
    }

    /// An item's properties as the last layout read gave them; the root's for 0; nil for an unknown id.
    func properties(of appID: String, _ id: Int32) -> [String: Variant]? {
        if id == 0 { return ["children-display": Variant("submenu")] }
        return menus.withLock { $0.entries[appID]?[id] }.map(DockMenus.properties)
    }

    /// A click on an item: a shortcut item as `PerformShortcut` delivers, a recent activity continued.
    /// The dock gives the click's time and no token: on X11 the startup id convention carries the
    /// time; on Wayland a token for the click comes from the compositor.
    /// - Throws: `invalidArgument` for an id the menu's last layout did not have; what carrying the
    ///   event out throws.
    func choose(of appID: String, id: Int32, clickedAt timestamp: UInt32) async throws(DispatchError) -> Outcome {
        try await routing.carry("dock:\(appID)/\(id)") { () async throws(DispatchError) in
            try await self.itemEvent(of: appID, id: id, clickedAt: timestamp)
        }
    }

    /// The event a click on item `id` of `appID`'s quicklist carries: its shortcut, or its recent
    /// saved activity.
    private func itemEvent(of appID: String, id: Int32, clickedAt timestamp: UInt32) async throws(DispatchError) -> Event {
        guard let entry = menus.withLock({ $0.entries[appID]?[id] }) else {
            throw .invalidArgument(String(id), reason: "\(appID)'s quicklist had no such item when a dock last read it")
        }
        let platformData = LaunchPlatformData(
            activationToken: await routing.configuration.shellActionTokens.forReportedAction(),
            desktopStartupID: "waypost-dock_TIME\(timestamp)")
        switch entry {
        case .shortcut(let item):
            let raw = item.activity
            let details: Contract.ActivityDetails
            do { details = try Contract.ActivityDetails(raw) } catch { throw DispatchError(error, in: "shortcut item \(item.type)") }
            let activity = UserActivity(type: item.type, details)
            return Event(planned: .shortcut(activity, app: appID), activity: raw, platformData: platformData)
        case .recent(let saved, _):
            return try await routing.savedActivity(saved, platformData: platformData, opener: nil)
        }
    }
}

extension DockMenuService {
    func appChanged(_ change: AppChange) {
        switch change {
        case .gone(let appID): withdraw(appID)
        case .savedActivitiesChanged(let appID): recentActivitiesChanged(of: appID)
        }
    }
}
