public import ExternalEvents
import DBus
import Synchronization
import WaypostContract

/// A dynamic shortcut item (Apple's `UIApplicationShortcutItem`): shown in the app's dock menu, and
/// when chosen, delivered to `onContinueUserActivity(type)` of the scene the rules pick for its target.
public struct ShortcutItem: Sendable, Hashable {
    public var type: String
    public var title: String
    public var subtitle: String?
    /// A themed icon name or an absolute path.
    public var icon: String?
    public var targetContentIdentifier: String?
    public var userInfo: [String: UserInfoValue]

    public init(
        type: String, title: String, subtitle: String? = nil, icon: String? = nil, targetContentIdentifier: String? = nil,
        userInfo: [String: UserInfoValue] = [:]
    ) {
        (self.type, self.title, self.subtitle, self.icon) = (type, title, subtitle, icon)
        (self.targetContentIdentifier, self.userInfo) = (targetContentIdentifier, userInfo)
    }

    var contract: Contract.ShortcutItem {
        Contract.ShortcutItem(
            type: type, title: title, subtitle: subtitle, icon: icon, targetContentIdentifier: targetContentIdentifier,
            userInfo: UserInfoValue.variants(userInfo))
    }
}

extension Application {
    /// The app's dynamic shortcut items (`UIApplication.shortcutItems`), in the order the dock shows
    /// them, before the app's recent saved activities. Sent in the background like scene changes
    /// (`synchronize()` waits for them), again after the dispatcher restarts; the dock menu goes
    /// when the app's last process leaves. At most 16, fields of at most 256 bytes: more is refused
    /// (`synchronize()` throws `dispatcherRefused` with `BudgetExceeded` or `InvalidArgument`).
    public var shortcutItems: [ShortcutItem] {
        get { state.withLock { $0.shortcutItems }.map(ShortcutItem.init) }
        set {
            let items = newValue.map(\.contract)
            changed { $0.shortcutItems = items }
        }
    }
}

extension ShortcutItem {
    init(_ item: Contract.ShortcutItem) {
        self.init(
            type: item.type, title: item.title, subtitle: item.subtitle, icon: item.icon,
            targetContentIdentifier: item.targetContentIdentifier, userInfo: item.userInfo.mapValues(UserInfoValue.init))
    }
}
