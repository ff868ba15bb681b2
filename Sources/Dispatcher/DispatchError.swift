import DBus
import Handoff
public import WaypostContract

/// Why the dispatcher refused a request or could not deliver an event. Each case carries the
/// offending value; `failure` names it in the contract (`io.waypost.Error.<Name>`) as callers receive it.
public enum DispatchError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURI(String, reason: String)
    case invalidArgument(String, reason: String)
    case noHandler(String, reason: String)
    case unknownApplication(String, reason: String)
    case notRegistered(caller: String)
    /// The connection's registration ended while it stayed on the bus (its process exited or ran
    /// another program); it may not register again.
    case registrationEnded(caller: String, reason: String)
    /// The registered process `pid` runs another program now than when it registered (an `exec`).
    case programChanged(app: String, pid: UInt32, registered: String, running: String)
    case notOwner(scene: String, app: String)
    case unknownScene(String, app: String)
    case unknownDeclaration(String, app: String)
    case sceneExists(String, app: String)
    case programMismatch(app: String, expected: String, running: String)
    case deliveryFailed(String, attempts: [String])
    case launchFailed(app: String, reason: String)
    case timeout(app: String, waitedFor: String, seconds: Double)
    /// The app's installed entry does not list the activity type in `X-Waypost-Activity-Types`.
    case unlistedActivityType(String, app: String)
    /// An activity's user info is over the size or nesting limit.
    case userInfoTooLarge(activityType: String, reason: String)
    /// No saved activity has this id (any more).
    case unknownActivity(String, reason: String)
    /// A saved activity's persistent identifier belongs to another app only.
    case notYours(persistentIdentifier: String, app: String)
    /// The activity store failed (SQLite's reason).
    case storeFailed(String)
    /// Refused at once, nothing delivered: `app`'s queue is full, or its change rate has no room soon.
    case busy(String, limit: Int)
    /// Refused at once, nothing done: `caller` has `limit` calls of `member` in flight (its budget).
    case callsInFlight(member: String, caller: String, limit: Int)
    /// The change would take the app over a budget (docs/delivery.md); nothing changed.
    case budgetExceeded(what: String, app: String, amount: Int, limit: Int)
    /// Another live process of the app declared other scenes (`differing` is the first id that differs).
    case declarationMismatch(app: String, differing: String, declaredBy: String)
    /// The app answered `member` with signature `signature`: not an acknowledgement, nor a refusal.
    case invalidReply(app: String, member: String, signature: String, expected: String)
    /// Several installed apps list the activity type, its publisher (if any) is not one of them,
    /// and the user chose none of them: it was sent nowhere.
    case appNotChosen(activityType: String, candidates: [String], publisher: String?)
    /// Several apps could take the event, none is chosen and no chooser could be shown (`why`).
    case notChosen(String, candidates: [String], scope: String, why: String)
    /// The user closed the chooser without picking: the event was sent nowhere.
    case choiceCancelled(String)
    /// The app's installed entry has no such shortcut (or it cannot be read, or its user info is not a JSON object).
    case unknownShortcut(app: String, action: String, reason: String)
    /// A handoff's offer or device, named as what happened (HandoffFailure.swift).
    case handoff(HandoffFailure)

    /// The contract's name for this failure, `io.waypost.Error.<Name>` on the bus.
    public var failure: Contract.Failure {
        switch self {
        case .invalidURI: .invalidURI
        case .invalidArgument: .invalidArgument
        case .noHandler: .noHandler
        case .unknownApplication: .unknownApplication
        case .notRegistered, .registrationEnded: .notRegistered
        case .programChanged: .programMismatch
        case .notOwner: .notOwner
        case .unknownScene: .unknownScene
        case .unknownDeclaration: .unknownDeclaration
        case .sceneExists: .sceneExists
        case .programMismatch: .programMismatch
        case .deliveryFailed: .deliveryFailed
        case .launchFailed: .launchFailed
        case .timeout: .timeout
        case .unlistedActivityType: .unlistedActivityType
        case .userInfoTooLarge: .userInfoTooLarge
        case .unknownActivity: .unknownActivity
        case .notYours: .notOwner
        case .storeFailed: .storeFailed
        case .busy, .callsInFlight: .busy
        case .budgetExceeded: .budgetExceeded
        case .declarationMismatch: .declarationMismatch
        case .invalidReply: .invalidReply
        case .appNotChosen, .notChosen: .appNotChosen
        case .choiceCancelled: .choiceCancelled
        case .unknownShortcut: .unknownShortcut
        case .handoff(let failure): failure.failure
        }
    }

    /// As the caller receives it on the bus.
    var busError: BusError { BusError(failure.errorName, description) }

    public var description: String {
        switch self {
        case .invalidURI(let uri, let reason): "invalid URI \(Self.abbreviated(uri)): \(reason)"
        case .invalidArgument(let value, let reason): "invalid argument \(Self.abbreviated(value)): \(reason)"
        case .noHandler(let what, let reason): "no application handles \(Self.abbreviated(what)): \(reason)"
        case .unknownApplication(let app, let reason): "unknown application \"\(app)\": \(reason)"
        case .notRegistered(let caller):
            "\(caller) has not registered an application: call RegisterApplication first"
        case .registrationEnded(let caller, let reason):
            "the registration of \(caller) ended: \(reason), and the connection stayed on the bus; it cannot register again"
        case .programChanged(let app, let pid, let registered, let running):
            "process \(pid) registered as \(app) running \(registered), and runs \(running) now; its registration ended"
        case .notOwner(let scene, let app):
            "scene \"\(scene)\" of \(app) belongs to another connection; only the one that added it may change it"
        case .unknownScene(let scene, let app): "\(app) has no open scene \"\(scene)\""
        case .unknownDeclaration(let declaration, let app):
            "\(app) has not declared a scene \"\(declaration)\" (call DeclareScenes first)"
        case .sceneExists(let scene, let app): "\(app) already has an open scene \"\(scene)\""
        case .programMismatch(let app, let expected, let running):
            "the calling process runs \(running), but the desktop entry of \(app) names \(expected)"
        case .deliveryFailed(let event, let attempts):
            "\(Self.abbreviated(event)) was not delivered: " + attempts.joined(separator: "; ")
        case .launchFailed(let app, let reason): "could not start \(app): \(reason)"
        case .timeout(let app, let what, let seconds):
            "\(app) did not \(what) within \(Self.seconds(seconds)) s"
        case .unlistedActivityType(let type, let app):
            "the desktop entry of \(app) does not list \(Self.abbreviated(type)) in X-Waypost-Activity-Types"
        case .userInfoTooLarge(let type, let reason): "the user info of \(Self.abbreviated(type)) is too large: \(reason)"
        case .unknownActivity(let id, let reason): "no saved activity \(Self.abbreviated(id)): \(reason)"
        case .notYours(let identifier, let app):
            "the saved activity \(Self.abbreviated(identifier)) is another application's, not \(app)'s; nothing was deleted"
        case .storeFailed(let reason): "the activity store failed: \(reason)"
        case .busy(let what, let limit): "busy: \(what) (at most \(limit)); nothing was delivered, try again later"
        case .callsInFlight(let member, let caller, let limit):
            "busy: \(caller) has \(limit) calls of \(member) in flight, its most; nothing was done, try again later"
        case .budgetExceeded(let what, let app, let amount, let limit):
            "\(what) of \(app) would be \(amount), over its budget of \(limit); nothing changed"
        case .declarationMismatch(let app, let differing, let owner):
            "another process of \(app) (\(owner)) declared other scenes (\(Self.abbreviated(differing)) differs); "
                + "its declarations stand while it runs"
        case .invalidReply(let app, let member, let signature, let expected):
            "\(app) answered \(member) with '\(signature)' where the contract says '\(expected)'; "
                + "it may have received the event, so it was sent nowhere else"
        case .appNotChosen(let type, let candidates, let publisher):
            "\(candidates.joined(separator: ", ")) can all continue \(Self.abbreviated(type))"
                + (publisher.map { ", \($0), which published it, cannot" } ?? "")
                + "; it was sent to none of them: choose one with `waypost activities choose \(type) APP`"
        case .notChosen(let subject, let candidates, let scope, let why):
            "\(candidates.joined(separator: ", ")) could all take \(Self.abbreviated(subject)) and none is chosen, "
                + "and \(why); it was sent nowhere: choose one with `waypost choices set \(scope) APP`"
        case .choiceCancelled(let subject):
            "the chooser for \(Self.abbreviated(subject)) was closed without a pick; it was sent nowhere"
        case .unknownShortcut(let app, let action, let reason):
            "no shortcut \(Self.abbreviated(action)) of \(app): \(reason)"
        case .handoff(let failure): failure.description
        }
    }

    /// The error as logs and monitors see it: `uri` cut to scheme, host and path (`Contract.redacted`)
    /// wherever it appears, in an app's own message too.
    func redacting(_ uri: String) -> DispatchError {
        let cut = Contract.redacted(uri)
        guard cut != uri else { return self }
        func r(_ text: String) -> String { text.replacing(uri, with: cut) }
        switch self {
        case .invalidURI(let value, let reason): return .invalidURI(r(value), reason: r(reason))
        case .invalidArgument(let value, let reason): return .invalidArgument(r(value), reason: r(reason))
        case .noHandler(let what, let reason): return .noHandler(r(what), reason: r(reason))
        case .unknownApplication(let app, let reason): return .unknownApplication(app, reason: r(reason))
        case .deliveryFailed(let event, let attempts): return .deliveryFailed(r(event), attempts: attempts.map(r))
        case .launchFailed(let app, let reason): return .launchFailed(app: app, reason: r(reason))
        case .timeout(let app, let what, let seconds): return .timeout(app: app, waitedFor: r(what), seconds: seconds)
        // The others name apps, scenes and activities, never a URI.
        default: return self
        }
    }

    /// Long values are cut in messages so that an oversized URI does not flood a terminal; each on one
    /// line (`OutsideText`), so that a link's newline starts no log line of its own.
    static func abbreviated(_ value: String) -> String {
        let quoted = value.count > 200
            ? "\"\(OutsideText.shown(value.prefix(200), limit: .max))…\" (\(value.utf8.count) bytes)" : "\"\(OutsideText.shown(value, limit: .max))\""
        return quoted
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
