import Associations
import DBus
public import Desktop
import ExternalEvents
import FoundationEssentials
import Planning
import WaypostContract

// Shortcuts: a desktop action with Waypost keys (static) reaches the app whose entry declares it,
// as a user activity of the shortcut's type, in the scene the rules pick (docs/shortcuts.md).
extension Dispatcher {
    /// Delivers the static shortcut `action` of `appID`'s installed entry, by the rules, to that app only.
    /// - Throws: `invalidArgument` for an empty or oversized id; `unknownShortcut` when the entry has
    ///   no such shortcut; what routing throws.
    public func performShortcut(
        appID: String, action: String, platformData: LaunchPlatformData, opener: PendingOpener? = nil
    ) async throws(DispatchError) -> Outcome {
        try await carry("shortcut:\(appID)/\(action)", opener: opener) { () async throws(DispatchError) in
            let (activity, raw, app) = try self.staticShortcut(appID: appID, action: action)
            return Event(planned: .shortcut(activity, app: app), activity: raw, platformData: platformData, opener: opener)
        }
    }

    /// Where `performShortcut` would deliver it now, delivering nothing: every destination of its plan.
    public func explainShortcut(appID: String, action: String) throws(DispatchError) -> [Outcome] {
        let (activity, _, app) = try staticShortcut(appID: appID, action: action)
        return try explain(.shortcut(activity, app: app), opener: nil)
    }

    /// The shortcut as the app receives it: the activity routing reads, the dictionary delivered,
    /// and the entry's id.
    func staticShortcut(appID: String, action: String) throws(DispatchError) -> (UserActivity, [String: Variant], String) {
        try Registry.check(id: appID, what: "app id")
        try Registry.check(id: action, what: "action name")
        let shortcut: DesktopShortcut
        do { shortcut = try directory.shortcut(appID: appID, action: action) } catch {
            throw .unknownShortcut(app: appID, action: action, reason: error.description)
        }
        try Registry.check(id: shortcut.type, what: "shortcut type")
        var raw: [String: Variant] = [:]
        typealias Keys = Contract.ActivityDetails.Keys
        raw.insert(Keys.title, shortcut.name)
        if let target = shortcut.targetContentIdentifier { raw.insert(Keys.targetContentIdentifier, target) }
        if let json = shortcut.userInfoJSON {
            let info: [String: UserInfoValue]
            do { info = try JSONDecoder().decode([String: UserInfoValue].self, from: Data(json.utf8)) } catch {
                throw .unknownShortcut(
                    app: shortcut.appID, action: action, reason: "\(DesktopShortcut.Keys.userInfo) is not a JSON object")
            }
            let variants = UserInfoValue.variants(info)
            let variant = Variant(variants)
            guard variant.size <= Budgets.Activities.userInfoBytes, variant.nesting <= Budgets.Activities.userInfoNesting else {
                throw .userInfoTooLarge(activityType: shortcut.type, reason: "a shortcut's user info is bounded as an activity's")
            }
            raw.insert(Keys.userInfo, variants)
        }
        let details: Contract.ActivityDetails
        do { details = try Contract.ActivityDetails(raw) } catch { throw DispatchError(error, in: "shortcut \(action)") }
        return (UserActivity(type: shortcut.type, details), raw, shortcut.appID)
    }
}
