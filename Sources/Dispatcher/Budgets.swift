import ExternalEvents
import WaypostContract

/// Every bound the daemon holds a caller to, in one table: what one app may make the daemon hold,
/// checked before any work is done for a call (before conditions are sorted, folded or indexed),
/// so that no client can grow or stall the daemon. (Calls in flight are below, per budget; the
/// rate of condition changes is `ChangeRate`'s; the store's and Handoff's own bounds are in their
/// modules, which the daemon does not own.)
/// docs/delivery.md lists these numbers; a call over one gets `BudgetExceeded` (or, for one value
/// that is malformed rather than large, `InvalidArgument`) naming the value, and changes nothing.
enum Budgets {
    /// Events waiting for the chooser while it shows another (one chooser on the screen at a time).
    static let waitingChoosers = 8
    /// How long `Open` waits for the user's pick before it answers "choose" (the pick is carried
    /// out when it comes): under `gio open`'s 25 s D-Bus timeout.
    static let chooserAnswerWait: Duration = .seconds(20)
    /// One condition, as given (UTF-8 bytes).
    static let conditionBytes = 4096
    /// Conditions of one scene, all its modifiers' preferring and allowing sets together.
    static let conditionsPerScene = 1024
    /// Condition bytes of one scene.
    static let conditionBytesPerScene = 64 * 1024
    /// Condition bytes of all of an app's open scenes together (what its index holds).
    static let conditionBytesPerApp = 1024 * 1024
    /// Declarations of an app.
    static let declarations = 256
    /// `matching` condition bytes of all of an app's declarations together (routing reads them all
    /// for every event that no open scene takes).
    static let matchingBytesPerApp = 64 * 1024
    /// An id of any kind (an app's, a scene's, a notification's, a target), and a search term.
    static let idBytes = 1024
    /// Open scenes of one app.
    static let scenesPerApplication = 100_000

    /// What a scene may publish and what a search or a page reads, so that no app can grow the
    /// daemon or the store without bound.
    enum Activities {
        /// User info, counting its strings' (and keys') UTF-8 bytes and 8 bytes for any other value
        /// (Apple recommends staying under 3 KB).
        static let userInfoBytes = 16 * 1024
        /// Containers deep, variants included: `{"a": ["b"]}` is 3 (dictionary, variant, array).
        static let userInfoNesting = 16
        static let titleBytes = 4096
        static let keywords = 64
        static let keywordBytes = 256
        static let webpageURLBytes = 64 * 1024
        static let searchTerms = 32
        /// The UTF-8 bytes of a search's terms together: its 8 words of 256 bytes and what separates them.
        static let searchBytes = 4096
        static let searchResults: UInt32 = 1000
        static let defaultSearchResults: UInt32 = 20
        /// Activities in a page of `ListSavedActivitiesPage` (and the one page `ListSavedActivities` answers).
        static let pageActivities: UInt32 = 100
        /// `CurrentActivityChanged` is sent at most this often: a change after a quiet spell at once, the
        /// changes within the interval as one signal at its end, with the activity current then.
        static let announcementInterval: Duration = .milliseconds(100)
    }

    /// What an app may post, so that no app can grow the daemon or flood the screen; and link
    /// notifications, which any caller may post.
    enum Notifications {
        static let livePerApp = 32
        /// All of an app's live notifications' content together.
        static let bytesPerApp = 64 * 1024
        static let titleBytes = 1024
        static let bodyBytes = 4096
        static let iconBytes = 4096
        static let userInfoBytes = 16 * 1024
        static let userInfoNesting = 16
        static let buttons = 3
        static let buttonBytes = 256
        /// Live link notifications of every caller together, and of one caller.
        static let links = 32
        static let linksPerCaller = 8
    }

    /// An app's dynamic shortcut items: a dock shows a handful, and none may grow the daemon.
    enum Shortcuts {
        static let items = 16
        /// Type, title, subtitle, icon, target: each at most this many UTF-8 bytes.
        static let fieldBytes = 256
        /// Recent activities shown after the shortcut items.
        static let recentActivities = 5
    }

    /// Whom a call counts against: the app behind its connection where that is known (a sandboxed
    /// app's or an installed app's processes are one), else the connection's process, else (before
    /// the bus told its process) the connection itself.
    enum Caller: Sendable, Hashable, CustomStringConvertible {
        case app(String)
        case process(UInt32)
        case connection(String)

        var description: String {
            switch self {
            case .app(let id): "app \(id)"
            case .process(let pid): "process \(pid)"
            case .connection(let name): "connection \(name)"
            }
        }
    }

    /// The condition bytes of a scene's modifiers as they arrived, after checking each condition
    /// and the scene's totals.
    /// - Throws: `invalidArgument` for an oversized condition, `budgetExceeded` for the scene's totals.
    static func conditionBytes(ofScene scene: String, app: String, _ modifiers: [Contract.Modifier]) throws(DispatchError) -> Int {
        var count = 0, bytes = 0
        for modifier in modifiers {
            for condition in modifier.preferring + modifier.allowing {
                let size = condition.utf8.count
                if size > conditionBytes {
                    throw .invalidArgument(condition, reason: "a condition may be at most \(conditionBytes) bytes")
                }
                count += 1
                bytes += size
            }
        }
        if count > conditionsPerScene {
            throw .budgetExceeded(what: "the conditions of scene \"\(scene)\"", app: app, amount: count, limit: conditionsPerScene)
        }
        if bytes > conditionBytesPerScene {
            throw .budgetExceeded(
                what: "the condition bytes of scene \"\(scene)\"", app: app, amount: bytes, limit: conditionBytesPerScene)
        }
        return bytes
    }

    /// Checks an app's declarations as they arrived: their number and their `matching` bytes.
    /// - Throws: `invalidArgument` for an oversized condition, `budgetExceeded` for the totals.
    static func check(_ declarations: [Contract.Declaration], app: String) throws(DispatchError) {
        if declarations.count > Self.declarations {
            throw .budgetExceeded(what: "the declarations", app: app, amount: declarations.count, limit: Self.declarations)
        }
        var bytes = 0
        for condition in declarations.lazy.flatMap({ $0.matching ?? [] }) {
            if condition.utf8.count > conditionBytes {
                throw .invalidArgument(condition, reason: "a condition may be at most \(conditionBytes) bytes")
            }
            bytes += condition.utf8.count
        }
        if bytes > matchingBytesPerApp {
            throw .budgetExceeded(what: "the matching bytes of the declarations", app: app, amount: bytes, limit: matchingBytesPerApp)
        }
    }
}

/// What each budget of calls in flight (`io.waypost.CallsInFlight` in dbus/, on the member) allows:
/// one caller's share, over all its connections, and of all callers together four times that. The
/// next call over either gets `Busy` at once, naming the member, who, and the number. So no one
/// caller holds every slot of a member, and however many connections come, a member's calls in
/// flight are bounded.
extension Contract.Member.CallsInFlight {
    /// One caller's share: events and the desktop search's questions come several at once; what an
    /// app says of itself, and the commands' queries, are answered at once or after a turn.
    var share: Int {
        switch self {
        case .many: 32
        case .few: 16
        }
    }
    /// Every caller's together.
    var total: Int { share * 4 }
}
