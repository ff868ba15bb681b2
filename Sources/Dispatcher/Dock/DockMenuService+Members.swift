import DBus
import WaypostContract

// com.canonical.dbusmenu as libdbusmenu's client (Dash to Dock, Ubuntu Dock, Plank) calls it, one
// object per app's quicklist: the layout, the items' properties, AboutToShow, and events, of which
// "clicked" chooses an item (DockMenuService.swift).
extension DockMenuService {
    func menuInterface(_ appID: String) -> Interface {
        typealias Members = Contract.DBusMenu
        typealias Layout = Structure<Int32, [String: Variant], [Variant]>
        return Interface(
            Members.interface,
            methods: [
                serving.method(Members.getLayout) { call in
                    let (parent, _, _) = try call.arguments(Int32.self, Int32.self, [String].self)
                    let (revision, root) = await self.layout(of: appID)
                    guard parent == 0 else {
                        // Items have no submenus: an item's layout is itself, without children.
                        let properties = self.properties(of: appID, parent) ?? [:]
                        return try call.reply(revision, Layout((parent, properties, [])))
                    }
                    return try call.reply(revision, root)
                },
                serving.method(Members.getGroupProperties) { call in
                    let (ids, _) = try call.arguments([Int32].self, [String].self)
                    var found: [Structure<Int32, [String: Variant]>] = []
                    for id in ids.prefix(Budgets.Shortcuts.items + Budgets.Shortcuts.recentActivities + 2) {
                        if let properties = self.properties(of: appID, id) {
                            found.append(Structure((id, properties)))
                        }
                    }
                    return try call.reply(found)
                },
                serving.method(Members.getProperty) { call in
                    let (id, name) = try call.arguments(Int32.self, String.self)
                    guard let value = self.properties(of: appID, id)?[name] else {
                        throw BusError(.invalidArgs, "item \(id) of \(appID)'s quicklist has no property \(name)")
                    }
                    return try call.reply(value)
                },
                serving.method(Members.event) { call in
                    let (id, event, _, timestamp) = try call.arguments(Int32.self, String.self, Variant.self, UInt32.self)
                    // Answered at once: the dock does not wait for the app, nor the app for the dock.
                    if event == "clicked" { Task { await self.dockItemClicked(appID, id, at: timestamp) } }
                    return try call.reply()
                },
                serving.method(Members.eventGroup) { call in
                    // The first `eventsPerGroup` events are read, no more: a dock sends a handful, and
                    // 100,000 of them kept the connection's thread from other apps' links.
                    var events: [(Int32, String, Variant, UInt32)] = []
                    var reader = call.message.reader()
                    do {
                        try reader.readArray(of: "(isvu)") { element in
                            guard events.count < DockMenus.eventsPerGroup else { throw EnoughEvents() }
                            events.append(try element.read(Structure<Int32, String, Variant, UInt32>.self).fields)
                        }
                    } catch is EnoughEvents {
                    } catch {
                        throw BusError(.invalidArgs, "EventGroup takes a(isvu): \(error)")
                    }
                    for (id, timestamp) in DockMenus.clicks(in: events) {
                        Task { await self.dockItemClicked(appID, id, at: timestamp) }
                    }
                    return try call.reply([Int32]())
                },
                serving.method(Members.aboutToShow) { call in
                    _ = try call.arguments(Int32.self)
                    // The layout is made afresh on every GetLayout, with the recent activities of now.
                    return try call.reply(false)
                },
                serving.method(Members.aboutToShowGroup) { call in
                    _ = try call.arguments([Int32].self)
                    return try call.reply([Int32](), [Int32]())
                },
            ],
            signals: [
                Members.itemsPropertiesUpdated.signalDeclaration, Members.layoutUpdated.signalDeclaration,
                Members.itemActivationRequested.signalDeclaration,
            ],
            properties: [
                Property("Version", "u") { .uint32(3) },
                Property("TextDirection", "s") { .string("ltr") },
                Property("Status", "s") { .string("normal") },
                Property("IconThemePath", "as") { Variant([String]()) },
            ])
    }
}

extension DockMenuService {
    /// A dock's click on an item of the app's quicklist, carried out and reported by `Routed`.
    func dockItemClicked(_ appID: String, _ id: Int32, at timestamp: UInt32) async {
        _ = try? await choose(of: appID, id: id, clickedAt: timestamp)
    }
}

/// Ends reading an event group once it holds as many events as are taken.
private struct EnoughEvents: Error {}
