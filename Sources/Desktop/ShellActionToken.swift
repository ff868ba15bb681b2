/// A token that brings a window to the front for a user action the desktop's own surfaces reported
/// without one: GNOME Shell 43's notification banners send `ActionInvoked` and no `ActivationToken`,
/// its search's `ActivateResult` only a timestamp, a dock's menu `Event` a timestamp. On Wayland a
/// window comes to the front only with a token the compositor gave for a user's action.
///
/// mutter takes a launch a windowless client announces (`gtk_shell1.notify_launch`, as GTK's launch
/// context does) as a startup sequence with the current time, and honours its id as an activation
/// token until the user's next input: obtained right after the reported action, it stands for that
/// action. Any client of the compositor could do the same; the dispatcher does it only right after
/// one of those surfaces reported a user's action (docs/threat-model.md). KWin offers no such thing
/// to a windowless client (`notOffered`): there, Plasma's own surfaces send tokens themselves.
public enum ShellActionToken {
    /// How long each round trip to the compositor may take before it counts as not answering.
    static let timeoutMilliseconds: Int32 = 1_000

    /// Obtains a token from the compositor at `waylandDisplay` (`WAYLAND_DISPLAY`). Blocks for two
    /// round trips to the compositor (bounded): call it off any thread that must not wait.
    /// - Throws: `ShellActionTokenError`: no libwayland, no compositor there, one that offers no
    ///   way, or one that failed to answer.
    public static func obtain(waylandDisplay: String) throws(ShellActionTokenError) -> String {
        var random = SystemRandomNumberGenerator()
        let id = "waypost-shell-" + (0..<2).map { _ in String(random.next() as UInt64, radix: 16) }.joined()
        try WaylandClient.notifyLaunch(display: waylandDisplay, startupID: id, timeoutMilliseconds: timeoutMilliseconds)
        return id
    }
}

/// Why no token could be obtained for an action on the desktop's own surface.
public enum ShellActionTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    case libraryMissing(library: String, reason: String)
    case functionMissing(library: String, function: String)
    /// Nothing listens at the display's socket.
    case noCompositor(display: String)
    /// The compositor offers a windowless client no way to announce a launch (no `gtk_shell1` 3).
    case notOffered(display: String)
    /// The compositor broke the connection or did not answer in time.
    case failed(display: String)

    public var description: String {
        switch self {
        case .libraryMissing(let library, let reason): "\(library) cannot be opened: \(reason)"
        case .functionMissing(let library, let function): "\(library) lacks \(function)"
        case .noCompositor(let display): "no Wayland compositor answers at \(display)"
        case .notOffered(let display): "the compositor at \(display) gives a windowless client no token (no gtk_shell1 3)"
        case .failed(let display): "the compositor at \(display) did not answer"
        }
    }
}
