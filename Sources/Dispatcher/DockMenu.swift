import DBus
import WaypostContract

/// Bounds on an app's dynamic shortcut items: a dock shows a handful, and none may grow the daemon.
enum ShortcutLimits {
    static let items = 16
    /// Type, title, subtitle, icon, target: each at most this many UTF-8 bytes.
    static let fieldBytes = 256
    /// Recent activities shown after the shortcut items.
    static let recentActivities = 5
}

/// What one item of an app's quicklist stands for.
enum DockMenuEntry: Sendable, Hashable {
    case shortcut(Contract.ShortcutItem)
    /// A saved activity, by its id in the store (`ContinueSavedActivity`'s).
    case recent(id: String, title: String)
}

/// Each app's dock quicklist: its dynamic shortcut items, and what the menu's item ids stood for
/// when its layout was last read (a click names an id).
struct DockMenus: Sendable {
    var items: [String: [Contract.ShortcutItem]] = [:]
    var entries: [String: [Int32: DockMenuEntry]] = [:]
    var revision: UInt32 = 1
    /// Apps whose recent activities are to be registered with Plasma's activity manager shortly.
    var recentsDue: Set<String> = []

    /// Where the app's menu is served: its id with `.` as `/` and `-` as `_`, as the spec derives paths.
    static func path(of appID: String) -> ObjectPath? {
        try? ObjectPath("/io/waypost/Dispatcher/quicklist/" + String(appID.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 }))
    }

    /// The dbusmenu layout (`(ia{sv}av)`): a root whose children are the shortcut items, a separator,
    /// and the recent activities; each child's id is what `entries` maps it to.
    static func layout(_ menu: [DockMenuEntry]) -> (entries: [Int32: DockMenuEntry], root: Structure<Int32, [String: Variant], [Variant]>) {
        var entries: [Int32: DockMenuEntry] = [:]
        var children: [Variant] = []
        var id: Int32 = 1
        var previous: DockMenuEntry?
        for entry in menu {
            if case .shortcut? = previous, case .recent = entry {
                children.append(child(id, ["type": Variant("separator")]))
                id += 1
            }
            entries[id] = entry
            children.append(child(id, properties(of: entry)))
            id += 1
            previous = entry
        }
        return (entries, Structure((0, ["children-display": Variant("submenu")], children)))
    }

    /// The dbusmenu properties of an item: its label, and an icon name when it has one.
    static func properties(of entry: DockMenuEntry) -> [String: Variant] {
        switch entry {
        case .shortcut(let item):
            var properties = ["label": Variant(item.title)]
            if let icon = item.icon { properties["icon-name"] = Variant(icon) }
            return properties
        case .recent(_, let title): return ["label": Variant(title)]
        }
    }

    private static func child(_ id: Int32, _ properties: [String: Variant]) -> Variant {
        .structure([.int32(id), Variant(properties), .array(element: "v", [])])
    }
}
