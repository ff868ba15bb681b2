import DBus
import WaypostContract

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
    /// Each app's layout as last made, read again for `layoutLifetime` at most (a stranger reading
    /// a menu in a loop then costs no store read per call); dropped when the app's items change or
    /// it saves or deletes an activity.
    var layouts: [String: (madeAt: ContinuousClock.Instant, entries: [Int32: DockMenuEntry], root: Structure<Int32, [String: Variant], [Variant]>)] = [:]
    static let layoutLifetime: Duration = .seconds(1)

    /// Where the app's menu is served: one element per `.`-separated part of its id, each escaped as
    /// sd-bus escapes a path element (a byte outside `A-Za-z0-9` as `_` and two hex digits), so that
    /// no two ids share a path (`org.a_b` and `org.a-b` were both `/org/a_b` when `-` became `_`).
    /// Docks find the path in `LauncherEntry.Update`, not by deriving it. Nil for an id with an
    /// empty part.
    static func path(of appID: String) -> ObjectPath? {
        let parts = appID.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.contains(where: \.isEmpty) else { return nil }
        return try? ObjectPath("/io/waypost/Dispatcher/quicklist/" + parts.map(escapedElement).joined(separator: "/"))
    }

    private static func escapedElement(_ part: Substring) -> String {
        let hex = Array("0123456789abcdef")
        var element = ""
        for byte in part.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                element.append(Character(Unicode.Scalar(byte)))
            default:
                element += "_" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return element
    }

    /// Events of an `EventGroup` read (libdbusmenu sends those since its last call: a handful).
    static let eventsPerGroup = 64

    /// The clicks an `EventGroup` holds (libdbusmenu sends the events since its last call as one):
    /// the first click of each item, with its time, in order; at most as many as a menu has items.
    static func clicks(in events: [(Int32, String, Variant, UInt32)]) -> [(id: Int32, timestamp: UInt32)] {
        var clicks: [(id: Int32, timestamp: UInt32)] = []
        var seen: Set<Int32> = []
        for (id, kind, _, timestamp) in events where kind == "clicked" && seen.insert(id).inserted {
            guard clicks.count < Budgets.Shortcuts.items + Budgets.Shortcuts.recentActivities + 1 else { break }
            clicks.append((id, timestamp))
        }
        return clicks
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
