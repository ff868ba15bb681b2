/// One row of a `ListWindow`: what the app calls it, and what the user reads.
public struct ListItem: Sendable, Hashable {
    public let id: String
    public let label: String
    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// A sample app's window: a heading, a list with at most one item selected, and a button (the
/// samples' "New Window"). The app owns the state; the window reports what the user did.
@GtkActor public final class ListWindow {
    public let items: [ListItem]
    /// The user selected an item (nil: the selection was cleared).
    public var onSelect: (String?) -> Void = { _ in }
    /// The window became the active one.
    public var onFocus: () -> Void = {}
    /// The user closed the window; it is gone once this returns.
    public var onClose: () -> Void = {}
    /// The button was pressed.
    public var onAction: () -> Void = {}
    private var widgets: WindowWidgets?

    public init(title: String, heading: String, items: [ListItem], action: String) {
        self.items = items
        widgets = WindowWidgets(
            title: title, heading: heading, rows: items.map(\.label), action: action,
            events: WindowEvents(
                selected: { [weak self] index in
                    guard let self else { return }
                    onSelect(index.map { items[$0].id })
                },
                focused: { [weak self] in self?.onFocus() },
                closing: { [weak self] in
                    guard let self else { return }
                    widgets = nil
                    onClose()
                },
                action: { [weak self] in self?.onAction() }))
    }

    public var isOpen: Bool { widgets != nil }

    public func setTitle(_ title: String) { widgets?.setTitle(title) }

    public func setHeading(_ text: String) { widgets?.setHeading(text) }

    /// Shows `id` selected (none for nil); `onSelect` is for the user's choices and is not called.
    public func select(_ id: String?) { widgets?.select(id.flatMap { id in items.firstIndex { $0.id == id } }) }

    /// Shows the window and brings it to the front with the opener's token (an `EventContext`'s
    /// `activationToken`). Without one, a desktop with focus-stealing prevention leaves the window
    /// where it is (mutter, KWin) or only marks it as wanting attention.
    public func present(token: String? = nil) { widgets?.present(token: token) }

    /// Closes it as its close button would.
    public func close() { widgets?.close() }
}

/// GTK's start and main loop, for a sample's `main.swift`.
public enum GtkLoop {
    /// `gtk_init_check` on the main thread, before any window; false without a display.
    public static func initialize() -> Bool { initializeGtk() }

    /// Runs GTK's main loop on the calling (main) thread until `quit()`; `GtkActor` code runs in it.
    public static func run() { runMainLoop() }

    @GtkActor public static func quit() { quitMainLoop() }
}
