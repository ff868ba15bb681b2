public import ExternalEvents
import DBus
import Synchronization
import WaypostContract

/// A dynamic shortcut item (Apple's `UIApplicationShortcutItem`): shown in the app's dock menu, and
/// when chosen, delivered to `onContinueUserActivity(type)` of the scene the rules pick for its target.
/// It wraps the contract's generated `ShortcutItem`, so its fields and their defaults are the XML's.
public struct ShortcutItem: Sendable, Hashable {
    /// What is sent; the properties below read and write it.
    var contract: Contract.ShortcutItem

    public var type: String {
        get { contract.type }
        set { contract.type = newValue }
    }
    public var title: String {
        get { contract.title }
        set { contract.title = newValue }
    }
    public var subtitle: String? {
        get { contract.subtitle }
        set { contract.subtitle = newValue }
    }
    /// A themed icon name or an absolute path.
    public var icon: String? {
        get { contract.icon }
        set { contract.icon = newValue }
    }
    public var targetContentIdentifier: String? {
        get { contract.targetContentIdentifier }
        set { contract.targetContentIdentifier = newValue }
    }
    public var userInfo: [String: UserInfoValue] {
        get { contract.userInfo.mapValues(UserInfoValue.init) }
        set { contract.userInfo = UserInfoValue.variants(newValue) }
    }

    public init(
        type: String, title: String, subtitle: String? = nil, icon: String? = nil, targetContentIdentifier: String? = nil,
        userInfo: [String: UserInfoValue] = [:]
    ) {
        contract = Contract.ShortcutItem(
            type: type, title: title, subtitle: subtitle, icon: icon, targetContentIdentifier: targetContentIdentifier,
            userInfo: UserInfoValue.variants(userInfo))
    }

    init(_ contract: Contract.ShortcutItem) { self.contract = contract }
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
