import DBus
import WaypostContract

/// What the daemon keeps of each app's live notifications: enough to route a click after the app
/// exited, bounded per app (`NotificationBudgets`). Keyed by app and the app's own id, so an app
/// can name, replace and withdraw only its own.
struct NotificationBook: Sendable {
    struct Key: Hashable, Sendable {
        var app: String
        var id: String
    }

    struct Posted: Sendable {
        var serverID: NotificationID?
        /// Which post this is: events of a notification since replaced are ignored.
        var serial: UInt64
        var targetContentIdentifier: String?
        var bytes: Int
    }

    private(set) var posted: [Key: Posted] = [:]
    private var bytesPerApp: [String: Int] = [:]
    private var countPerApp: [String: Int] = [:]
    private var serial: UInt64 = 0

    /// Reserves room for `key`'s new content (replacing what it held).
    /// - Throws: `budgetExceeded` over the app's count or bytes; nothing changes then.
    mutating func admit(_ key: Key, bytes: Int, target: String?) throws(DispatchError) -> UInt64 {
        let previous = posted[key]
        let count = (countPerApp[key.app] ?? 0) + (previous == nil ? 1 : 0)
        if count > Budgets.Notifications.livePerApp {
            throw .budgetExceeded(what: "the live notifications", app: key.app, amount: count, limit: Budgets.Notifications.livePerApp)
        }
        let total = (bytesPerApp[key.app] ?? 0) - (previous?.bytes ?? 0) + bytes
        if total > Budgets.Notifications.bytesPerApp {
            throw .budgetExceeded(what: "the notification bytes", app: key.app, amount: total, limit: Budgets.Notifications.bytesPerApp)
        }
        serial += 1
        posted[key] = Posted(serverID: previous?.serverID, serial: serial, targetContentIdentifier: target, bytes: bytes)
        countPerApp[key.app] = count
        bytesPerApp[key.app] = total
        return serial
    }

    /// The server's id for the post `serial` of `key`; false when another post replaced it meanwhile.
    mutating func shown(_ key: Key, serial: UInt64, as id: NotificationID) -> Bool {
        guard posted[key]?.serial == serial else { return false }
        posted[key]?.serverID = id
        return true
    }

    /// Forgets `key` (only post `serial` of it, when given); what it held.
    @discardableResult
    mutating func forget(_ key: Key, serial: UInt64? = nil) -> Posted? {
        guard let old = posted[key], serial == nil || old.serial == serial else { return nil }
        posted[key] = nil
        countPerApp[key.app, default: 1] -= 1
        bytesPerApp[key.app, default: old.bytes] -= old.bytes
        if countPerApp[key.app] == 0 { (countPerApp[key.app], bytesPerApp[key.app]) = (nil, nil) }
        return old
    }
}

extension Budgets.Notifications {
    /// The content's size, after checking each field.
    /// - Throws: `invalidArgument` for one value over its bound, naming it.
    static func check(_ content: Contract.NotificationContent, id: String) throws(DispatchError) -> Int {
        try Registry.check(id: id, what: "notification id")
        if content.title.isEmpty { throw .invalidArgument(content.title, reason: "a notification needs a title") }
        for (text, bound, what) in [
            (content.title, titleBytes, "title"), (content.body, bodyBytes, "body"), (content.icon, iconBytes, "icon"),
        ] where text.utf8.count > bound {
            throw .invalidArgument(text, reason: "a notification's \(what) may be at most \(bound) bytes")
        }
        if let target = content.targetContentIdentifier { try Registry.check(id: target, what: "target content identifier") }
        if content.buttons.count > buttons {
            throw .invalidArgument("\(content.buttons.count) buttons", reason: "a notification may have at most \(buttons)")
        }
        var bytes = content.title.utf8.count + content.body.utf8.count + content.icon.utf8.count + id.utf8.count
            + (content.targetContentIdentifier?.utf8.count ?? 0)
        for button in content.buttons {
            if button.action.isEmpty || button.action == Contract.NotificationResponse.defaultAction {
                throw .invalidArgument(button.action, reason: "a button's action may be neither empty nor \"default\" (the notification's own click)")
            }
            if button.action.utf8.count + button.label.utf8.count > buttonBytes {
                throw .invalidArgument(button.label, reason: "a button's action and label may be at most \(buttonBytes) bytes")
            }
            bytes += button.action.utf8.count + button.label.utf8.count
        }
        if !content.userInfo.isEmpty {
            let info = Variant(content.userInfo)
            if info.nesting > userInfoNesting {
                throw .invalidArgument("user-info", reason: "it is \(info.nesting) containers deep; at most \(userInfoNesting)")
            }
            if info.size > userInfoBytes {
                throw .invalidArgument("user-info", reason: "it holds \(info.size) bytes; at most \(userInfoBytes)")
            }
            bytes += info.size
        }
        return bytes
    }
}
/// The live link notifications, each with who posted it: any connection may post one, so there are
/// at most `Budgets.Notifications.links` together and `linksPerCaller` of one caller (the opener's
/// app, else the calling process), so that no one script holds every slot.
struct LinkNotificationBook: Sendable {
    private var entries: [String: (caller: String, serverID: NotificationID?)] = [:]
    private var counts: [String: Int] = [:]

    /// Holds a slot for `id` while it is posted.
    /// - Throws: `budgetExceeded` naming the caller's or everyone's bound; nothing is held then.
    mutating func reserve(_ id: String, for caller: String) throws(DispatchError) {
        let own = counts[caller, default: 0]
        if own >= Budgets.Notifications.linksPerCaller {
            throw .budgetExceeded(what: "live link notifications", app: caller, amount: own + 1, limit: Budgets.Notifications.linksPerCaller)
        }
        if entries.count >= Budgets.Notifications.links {
            throw .budgetExceeded(what: "live link notifications", app: "every caller", amount: entries.count + 1, limit: Budgets.Notifications.links)
        }
        entries[id] = (caller, nil)
        counts[caller] = own + 1
    }

    /// Notes the server's id for `id`; false when it was withdrawn while being posted.
    mutating func shown(_ id: String, as serverID: NotificationID) -> Bool {
        guard entries[id] != nil else { return false }
        entries[id]?.serverID = serverID
        return true
    }

    /// Forgets `id`; the server's id when it was shown.
    mutating func remove(_ id: String) -> NotificationID? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        let left = counts[entry.caller, default: 1] - 1
        counts[entry.caller] = left == 0 ? nil : left
        return entry.serverID
    }
}
