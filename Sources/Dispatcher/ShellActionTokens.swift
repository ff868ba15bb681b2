import Desktop
import Dispatch
import Synchronization
public import Logging

/// Tokens for a user's action that the desktop's own surfaces reported without one (GNOME Shell's
/// notification banners and search, a dock's menu): obtained from the compositor right after the
/// report, and only then (`ShellActionToken`), so that the window the action shows comes to the
/// front on Wayland as it would for a token the surface had given.
public struct ShellActionTokens: Sendable {
    /// Nil where none can ever be had.
    let obtain: (@Sendable () async -> String?)?

    /// Never a token: no Wayland session, or tests that model none.
    public static let none = ShellActionTokens(obtain: nil)

    /// From the compositor at `waylandDisplay` (the session's `WAYLAND_DISPLAY`; nil outside a Wayland
    /// session), on a thread outside the cooperative pool (two bounded round trips to the compositor).
    /// A compositor that offers no way is told once in the log; nothing is obtained from it again.
    public static func compositor(waylandDisplay: String?, logger: Logger) -> ShellActionTokens {
        guard let display = waylandDisplay, !display.isEmpty else { return .none }
        let refused = RefusedOnce()
        return ShellActionTokens {
            if refused.isSet { return nil }
            let result: Result<String, ShellActionTokenError> = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: Result { () throws(ShellActionTokenError) in try ShellActionToken.obtain(waylandDisplay: display) })
                }
            }
            switch result {
            case .success(let token): return token
            case .failure(let error):
                guard case .notOffered = error else {
                    logger.info("no token for the desktop's report of a user action: \(error)")
                    return nil
                }
                if refused.set() {
                    logger.notice("\(error): windows for clicks on the desktop's own notifications, search and dock menus come to the front only where the desktop gives a token itself")
                }
                return nil
            }
        }
    }

    /// Whether a token may be had at all (a Wayland session).
    var mayObtain: Bool { obtain != nil }

    /// A token for the action just reported, nil when none can be had.
    public func forReportedAction() async -> String? { await obtain?() }
}

/// A flag set once, from any thread.
private final class RefusedOnce: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    /// Sets it; true for the one call that did.
    func set() -> Bool { flag.withLock { flag in defer { flag = true }; return !flag } }
}
