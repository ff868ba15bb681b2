import DBus

// com.canonical.dbusmenu as libdbusmenu's client (Dash to Dock, Ubuntu Dock, Plank) calls it: the
// layout, the items' properties, AboutToShow, and events, of which "clicked" chooses an item.
extension Dispatcher {
    nonisolated func dockMenuInterface(_ appID: String) -> Interface {
        typealias Layout = Structure<Int32, [String: Variant], [Variant]>
        return Interface(
            Self.dbusmenu,
            methods: [
                Method(
                    "GetLayout", arguments: [.init("parentId", "i"), .init("recursionDepth", "i"), .init("propertyNames", "as")],
                    returns: [.init("revision", "u"), .init("layout", "(ia{sv}av)")]
                ) { call in
                    let (parent, _, _) = try call.arguments(Int32.self, Int32.self, [String].self)
                    let (revision, root) = await self.dockMenuLayout(of: appID)
                    guard parent == 0 else {
                        // Items have no submenus: an item's layout is itself, without children.
                        return try call.reply(revision, Layout((parent, await self.dockMenuProperties(of: appID, parent) ?? [:], [])))
                    }
                    return try call.reply(revision, root)
                },
                Method(
                    "GetGroupProperties", arguments: [.init("ids", "ai"), .init("propertyNames", "as")],
                    returns: [.init("properties", "a(ia{sv})")]
                ) { call in
                    let (ids, _) = try call.arguments([Int32].self, [String].self)
                    var found: [Structure<Int32, [String: Variant]>] = []
                    for id in ids {
                        if let properties = await self.dockMenuProperties(of: appID, id) { found.append(Structure((id, properties))) }
                    }
                    return try call.reply(found)
                },
                Method(
                    "GetProperty", arguments: [.init("id", "i"), .init("name", "s")], returns: [.init("value", "v")]
                ) { call in
                    let (id, name) = try call.arguments(Int32.self, String.self)
                    guard let value = await self.dockMenuProperties(of: appID, id)?[name] else {
                        throw BusError(.invalidArgs, "item \(id) of \(appID)'s quicklist has no property \(name)")
                    }
                    return try call.reply(value)
                },
                Method(
                    "Event", arguments: [.init("id", "i"), .init("eventId", "s"), .init("data", "v"), .init("timestamp", "u")]
                ) { call in
                    let (id, event, _, _) = try call.arguments(Int32.self, String.self, Variant.self, UInt32.self)
                    // Answered at once: the dock does not wait for the app, nor the app for the dock.
                    if event == "clicked" { Task { await self.chooseDockMenuItem(of: appID, id: id) } }
                    return try call.reply()
                },
                Method(
                    "EventGroup", arguments: [.init("events", "a(isvu)")], returns: [.init("idErrors", "ai")]
                ) { call in
                    let (events) = try call.arguments([Structure<Int32, String, Variant, UInt32>].self)
                    for event in events where event.fields.1 == "clicked" {
                        let id = event.fields.0
                        Task { await self.chooseDockMenuItem(of: appID, id: id) }
                    }
                    return try call.reply([Int32]())
                },
                Method("AboutToShow", arguments: [.init("id", "i")], returns: [.init("needUpdate", "b")]) { call in
                    _ = try call.arguments(Int32.self)
                    // The layout is made afresh on every GetLayout, with the recent activities of now.
                    return try call.reply(false)
                },
                Method(
                    "AboutToShowGroup", arguments: [.init("ids", "ai")],
                    returns: [.init("updatesNeeded", "ai"), .init("idErrors", "ai")]
                ) { call in
                    _ = try call.arguments([Int32].self)
                    return try call.reply([Int32](), [Int32]())
                },
            ],
            signals: [
                SignalDeclaration("ItemsPropertiesUpdated", arguments: [.init("updatedProps", "a(ia{sv})"), .init("removedProps", "a(ias)")]),
                SignalDeclaration("LayoutUpdated", arguments: [.init("revision", "u"), .init("parent", "i")]),
                SignalDeclaration("ItemActivationRequested", arguments: [.init("id", "i"), .init("timestamp", "u")]),
            ],
            properties: [
                Property("Version", "u") { .uint32(3) },
                Property("TextDirection", "s") { .string("ltr") },
                Property("Status", "s") { .string("normal") },
                Property("IconThemePath", "as") { Variant([String]()) },
            ])
    }

    /// An item's properties as the last layout read gave them; the root's for 0; nil for an unknown id.
    func dockMenuProperties(of appID: String, _ id: Int32) -> [String: Variant]? {
        if id == 0 { return ["children-display": Variant("submenu")] }
        return dockMenus.entries[appID]?[id].map(DockMenus.properties)
    }
}
