/// Why the chooser window cannot be shown. `waypost choose` reports it on stderr and exits 3, which
/// the daemon reads as "ask some other way".
public enum ChooserError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `dlopen` failed: GTK 4 is not installed (Debian's libgtk-4-1) or not loadable.
    case libraryMissing(library: String, reason: String)
    /// The installed GTK 4 (or a library it brings) lacks `function`.
    case functionMissing(library: String, function: String)
    /// `gtk_init_check` opened no display; the variables that name one, as they were (nil: unset).
    case noDisplay(display: String?, waylandDisplay: String?)

    public var description: String {
        switch self {
        case .libraryMissing(_, let reason):
            "GTK 4 cannot be loaded: \(reason)"
        case .functionMissing(let library, let function):
            "GTK 4 cannot be used: \(library) has no \(function)"
        case .noDisplay(let display, let waylandDisplay):
            "no display can be opened (DISPLAY \(display.map { "is \($0)" } ?? "unset"), "
                + "WAYLAND_DISPLAY \(waylandDisplay.map { "is \($0)" } ?? "unset"))"
        }
    }
}
