public import DBus
import ExternalEvents

extension Contract {
    /// A method or signal of the contract, as `dbus/*.xml` declares it.
    public struct Member: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case method, signal
        }

        public let kind: Kind
        public let name: MemberName
        /// What a call carries (a signal's arguments).
        public let arguments: [Parameter]
        /// What a method returns.
        public let results: [Parameter]
        /// What a reply to the method must carry: its results' signatures, joined (made once: the
        /// daemon checks every app's acknowledgement against it).
        public let outputSignature: String

        init(kind: Kind, name: MemberName, arguments: [Parameter], results: [Parameter]) {
            (self.kind, self.name, self.arguments, self.results) = (kind, name, arguments, results)
            outputSignature = results.map(\.signature.rawValue).joined()
        }

        /// A method exported as declared here, answered by `handler`.
        public func exported(
            _ handler: nonisolated(nonsending) @escaping @Sendable (MethodCall) async throws -> Reply
        ) -> Method {
            Method(name, arguments: arguments.map(\.argument), returns: results.map(\.argument), handler: handler)
        }

        /// A method exported as declared here, answered by `handler` without suspending: on the
        /// connection's thread as the call arrives, with no task (`Method.answeringAtOnce`).
        public func exportedAnsweringAtOnce(_ handler: @escaping @Sendable (MethodCall) throws -> Reply) -> Method {
            .answeringAtOnce(name, arguments: arguments.map(\.argument), returns: results.map(\.argument), handler: handler)
        }


        /// A signal declared for introspection as declared here.
        public var signalDeclaration: SignalDeclaration {
            SignalDeclaration(name, arguments: arguments.map(\.argument))
        }

        static func method(_ name: MemberName, in arguments: [Parameter] = [], out results: [Parameter] = []) -> Member {
            Member(kind: .method, name: name, arguments: arguments, results: results)
        }

        static func signal(_ name: MemberName, _ arguments: [Parameter]) -> Member {
            Member(kind: .signal, name: name, arguments: arguments, results: [])
        }
    }

    /// An argument of a member; for an `a{sv}` (or an array of them), the keys it holds.
    public struct Parameter: Sendable, Hashable {
        public let name: String
        public let signature: Signature
        public let keys: [KeyDeclaration]

        init(_ name: String, _ signature: Signature, keys: [KeyDeclaration] = []) {
            (self.name, self.signature, self.keys) = (name, signature, keys)
        }

        /// As an exported interface declares it.
        public var argument: Argument { Argument(name, signature) }
    }

    /// `io.waypost.Dispatcher1`, which the daemon serves at `objectPath`: apps register and keep it
    /// in step with their scenes; openers route events through it.
    public enum Dispatcher1 {
        public static let interface: InterfaceName = "io.waypost.Dispatcher1"

        public static let registerApplication = Member.method(
            "RegisterApplication",
            in: [.init("app_id", "s"), .init("object_path", "o"), .init("options", "a{sv}", keys: RegistrationOptions.Keys.all)])
        public static let declareScenes = Member.method(
            "DeclareScenes", in: [.init("declarations", "a(sa{sv})", keys: Declaration.Keys.all)])
        public static let ready = Member.method("Ready")
        public static let addScene = Member.method("AddScene", in: [.init("scene_id", "s"), .init("declaration_id", "s")])
        public static let removeScene = Member.method("RemoveScene", in: [.init("scene_id", "s")])
        public static let activateScene = Member.method("ActivateScene", in: [.init("scene_id", "s")])
        public static let setExternalEvents = Member.method(
            "SetExternalEvents", in: [.init("scene_id", "s"), .init("modifiers", "a(asas)")])
        public static let open = Member.method(
            "Open", in: [.init("uri", "s"), .init("platform_data", "a{sv}", keys: PlatformData.Keys.open)], out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.delivered)])
        public static let continueActivity = Member.method(
            "ContinueActivity",
            in: [.init("activity_type", "s"), .init("activity", "a{sv}", keys: ActivityDetails.Keys.all), platformData],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.delivered)])
        public static let setCurrentActivity = Member.method(
            "SetCurrentActivity",
            in: [.init("scene_id", "s"), .init("activity_type", "s"), .init("activity", "a{sv}", keys: ActivityDetails.Keys.all)])
        public static let clearCurrentActivity = Member.method("ClearCurrentActivity", in: [.init("scene_id", "s")])
        public static let deleteSavedActivities = Member.method(
            "DeleteSavedActivities", in: [.init("persistent_identifiers", "as")])
        public static let deleteAllSavedActivities = Member.method("DeleteAllSavedActivities")
        public static let getCurrentActivity = Member.method(
            "GetCurrentActivity", out: [.init("current", "a{sv}", keys: CurrentActivity.Keys.all)])
        public static let monitorCurrentActivity = Member.method("MonitorCurrentActivity")
        public static let currentActivityChanged = Member.signal(
            "CurrentActivityChanged", [.init("current", "a{sv}", keys: CurrentActivity.Keys.all)])
        public static let searchActivities = Member.method(
            "SearchActivities", in: [.init("terms", "as"), .init("limit", "u")],
            out: [.init("results", "aa{sv}", keys: SavedActivity.Keys.all)])
        public static let listSavedActivities = Member.method(
            "ListSavedActivities", in: [.init("app_id", "s")], out: [.init("results", "aa{sv}", keys: SavedActivity.Keys.all)])
        public static let listSavedActivitiesPage = Member.method(
            "ListSavedActivitiesPage", in: [.init("app_id", "s"), .init("after", "s"), .init("limit", "u")],
            out: [.init("results", "aa{sv}", keys: SavedActivity.Keys.all), .init("next", "s")])
        public static let continueSavedActivity = Member.method(
            "ContinueSavedActivity", in: [.init("id", "s"), platformData],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.delivered)])
        public static let performShortcut = Member.method(
            "PerformShortcut", in: [.init("app_id", "s"), .init("action", "s"), platformData],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.delivered)])
        public static let setShortcutItems = Member.method(
            "SetShortcutItems", in: [.init("items", "aa{sv}", keys: ShortcutItem.Keys.all)])
        public static let explainShortcut = Member.method(
            "ExplainShortcut", in: [.init("app_id", "s"), .init("action", "s")],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.explained)])
        public static let forgetSavedActivities = Member.method(
            "ForgetSavedActivities", in: [.init("app_id", "s"), .init("persistent_identifiers", "as")])
        public static let explain = Member.method(
            "Explain", in: [.init("uri", "s")], out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.explained)])
        public static let explainOpenedBy = Member.method(
            "ExplainOpenedBy", in: [.init("uri", "s"), .init("opener", "s")],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.explained)])
        public static let explainActivity = Member.method(
            "ExplainActivity",
            in: [.init("activity_type", "s"), .init("activity", "a{sv}", keys: ActivityDetails.Keys.all)],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.explained)])
        public static let status = Member.method(
            "Status",
            out: [
                .init("processes", "aa{sv}", keys: ProcessStatus.Keys.all),
                .init("scenes", "aa{sv}", keys: SceneStatus.Keys.all),
            ])
        public static let monitorRouted = Member.method(
            "MonitorRouted", in: [.init("options", "a{sv}", keys: MonitorOptions.Keys.all)])
        public static let ownedDomains = Member.method("OwnedDomains", out: [.init("domains", "as")])
        public static let ownedDomainsChanged = Member.signal("OwnedDomainsChanged", [.init("domains", "as")])
        public static let postNotification = Member.method(
            "PostNotification",
            in: [.init("notification_id", "s"), .init("content", "a{sv}", keys: NotificationContent.Keys.all)])
        public static let withdrawNotifications = Member.method(
            "WithdrawNotifications", in: [.init("notification_ids", "as")])
        public static let postLinkNotification = Member.method(
            "PostLinkNotification", in: [.init("title", "s"), .init("body", "s"), .init("uri", "s")],
            out: [.init("notification_id", "s")])
        public static let withdrawLinkNotification = Member.method(
            "WithdrawLinkNotification", in: [.init("notification_id", "s")])
        public static let explainNotification = Member.method(
            "ExplainNotification", in: [.init("app_id", "s"), .init("notification_id", "s")],
            out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.explained)])
        public static let routed = Member.signal(
            "Routed", [.init("event", "s"), .init("outcome", "a{sv}", keys: RoutingOutcome.Keys.routed)])

        public static let members = [
            registerApplication, declareScenes, ready, addScene, removeScene, activateScene, setExternalEvents,
            open, continueActivity, explain, explainOpenedBy, explainActivity, status, monitorRouted, routed,
            setCurrentActivity, clearCurrentActivity, deleteSavedActivities, deleteAllSavedActivities,
            getCurrentActivity, monitorCurrentActivity, currentActivityChanged, searchActivities, listSavedActivities, listSavedActivitiesPage,
            continueSavedActivity,
            forgetSavedActivities, ownedDomains, ownedDomainsChanged,
            postNotification, withdrawNotifications, explainNotification, postLinkNotification, withdrawLinkNotification,
            performShortcut, explainShortcut, setShortcutItems,
        ]
        /// Every error of the contract comes from the dispatcher.
        public static let errors = Failure.allCases
        /// The string keys whose values are a closed set, with the set: `io.waypost.Values` in the XML.
        public static let values: [String: [String]] = [
            RoutingOutcome.Keys.action.name: RoutingOutcome.Action.allCases.map(\.rawValue),
            RoutingOutcome.Keys.rule.name: RoutingOutcome.Rule.allCases.map(\.rawValue),
            Declaration.Keys.kind.name: Declaration.Kind.allCases.map(\.rawValue),
        ]
    }

    /// `io.waypost.Application1`, which each participating process serves at the object path it
    /// registered; only the dispatcher calls it.
    public enum Application1 {
        public static let interface: InterfaceName = "io.waypost.Application1"

        public static let openURL = Member.method(
            "OpenURL", in: [.init("scene_id", "s"), .init("uri", "s"), platformData])
        public static let continueUserActivity = Member.method(
            "ContinueUserActivity",
            in: [
                .init("scene_id", "s"), .init("activity_type", "s"),
                .init("activity", "a{sv}", keys: ActivityDetails.Keys.all), platformData,
            ])
        public static let createScene = Member.method(
            "CreateScene",
            in: [.init("declaration_id", "s"), .init("event", "a{sv}", keys: SceneEvent.Keys.all), platformData],
            out: [.init("scene_id", "s")])

        public static let receiveNotificationResponse = Member.method(
            "ReceiveNotificationResponse",
            in: [.init("scene_id", "s"), .init("response", "a{sv}", keys: NotificationResponse.Keys.all), platformData])

        public static let members = [openURL, continueUserActivity, createScene, receiveNotificationResponse]
        /// What an app refuses an event with (any error reply makes the dispatcher try the next destination).
        public static let errors: [Failure] = [.unknownScene, .unknownDeclaration, .noHandler, .invalidArgument]
    }

    /// `org.freedesktop.Application`, which GIO openers call on a DBusActivatable desktop entry: the
    /// daemon serves it for its own entry, and calls `Open` on apps that do not take part.
    public enum FreedesktopApplication {
        public static let interface: InterfaceName = "org.freedesktop.Application"

        public static let activate = Member.method("Activate", in: [platformData])
        public static let open = Member.method("Open", in: [.init("uris", "as"), platformData])
        public static let activateAction = Member.method(
            "ActivateAction", in: [.init("action_name", "s"), .init("parameter", "av"), platformData])

        public static let members = [activate, open, activateAction]

        /// Where a DBusActivatable app serves it: its id with `.` as `/` and `-` as `_`, after a `/`.
        public static func objectPath(forApplicationID id: String) -> ObjectPath {
            let path = "/" + String(id.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
            return (try? ObjectPath(path)) ?? .root
        }
    }

    private static let platformData = Parameter("platform_data", "a{sv}", keys: PlatformData.Keys.all)
}
