internal import CGtk

/// What a window tells its owner; each runs on the main loop's thread.
struct WindowEvents {
    var selected: @GtkActor (Int?) -> Void
    var focused: @GtkActor () -> Void
    var closing: @GtkActor () -> Void
    var action: @GtkActor () -> Void
}

/// The GTK widgets of one `ListWindow`: a window holding a heading, a list with one row selectable,
/// and a button. GTK owns the toplevel (transfer none from `gtk_window_new`); once it is destroyed
/// every call here is ignored, never made on a freed widget.
@GtkActor final class WindowWidgets {
    private let window: UnsafeMutablePointer<GtkWindow>
    // GtkLabel and GtkListBox are final types, whose structs C does not show: opaque here.
    private let heading: OpaquePointer
    private let list: OpaquePointer
    private var destroyed = false
    /// Set while the program selects a row, so that only the user's choices reach `selected`.
    private var selectingQuietly = false

    init(title: String, heading text: String, rows: [String], action: String, events: WindowEvents) {
        window = cast(gtk_window_new())
        gtk_window_set_title(window, title)
        gtk_window_set_default_size(window, 420, 360)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            side(box, 18)
        }
        let headingLabel = gtk_label_new(text)!
        heading = OpaquePointer(headingLabel)
        gtk_widget_add_css_class(headingLabel, "title-2")
        let listBox = gtk_list_box_new()!
        list = OpaquePointer(listBox)
        gtk_list_box_set_selection_mode(list, GTK_SELECTION_SINGLE)
        for row in rows {
            let label = gtk_label_new(row)!
            gtk_label_set_xalign(OpaquePointer(label), 0)
            gtk_widget_set_margin_top(label, 6)
            gtk_widget_set_margin_bottom(label, 6)
            gtk_list_box_append(list, label)
        }
        let button = gtk_button_new_with_label(action)!
        gtk_box_append(cast(box), headingLabel)
        gtk_box_append(cast(box), listBox)
        gtk_box_append(cast(box), button)
        gtk_window_set_child(window, box)
        // GTK 4.8 selects a single-selection list's first row when the window's first focus lands
        // on it: an empty window would take the first contact by itself once it is focused.
        gtk_window_set_focus(window, button)

        connectRowSelected(listBox) { [weak self] index in
            guard let self, !selectingQuietly else { return }
            events.selected(index)
        }
        connectClicked(button, events.action)
        connectNotify(window, "is-active") { [weak self] in
            guard let self, !destroyed, gtk_window_is_active(window) != 0 else { return }
            events.focused()
        }
        connectCloseRequest(window) { [weak self] in
            self?.destroyed = true  // GTK destroys it once this handler lets it close
            events.closing()
        }
    }

    func setTitle(_ title: String) {
        guard !destroyed else { return }
        gtk_window_set_title(window, title)
    }

    func setHeading(_ text: String) {
        guard !destroyed else { return }
        gtk_label_set_text(heading, text)
    }

    /// Selects row `index` (none for nil) without telling `selected`.
    func select(_ index: Int?) {
        guard !destroyed else { return }
        selectingQuietly = true
        defer { selectingQuietly = false }
        if let index, let row = gtk_list_box_get_row_at_index(list, Int32(index)) {
            gtk_list_box_select_row(list, row)
        } else {
            gtk_list_box_unselect_all(list)
        }
    }

    /// Shows the window and brings it to the front with the opener's token (Presenting.swift).
    func present(token: String?) {
        guard !destroyed else { return }
        presentWindow(window, token: token)
    }

    /// Closes the window as its close button does (`gtk_window_close`, which emits close-request).
    func close() {
        guard !destroyed else { return }
        gtk_window_close(window)
    }
}

/// `gtk_init_check`: false without a display to open.
func initializeGtk() -> Bool { gtk_init_check() != 0 }

/// The loop `runMainLoop` runs: made once, before any thread could read it (hence unchecked).
nonisolated(unsafe) private let mainLoop = g_main_loop_new(nil, 0)

/// `g_main_loop_run` on the default context, until `quitMainLoop`.
func runMainLoop() { g_main_loop_run(mainLoop) }

@GtkActor func quitMainLoop() {
    g_main_loop_quit(mainLoop)
}

// MARK: Signals

/// A GTK object pointer as another type of the hierarchy (C's cast of a GObject pointer).
private func cast<T, U>(_ pointer: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: T.self)
}

/// A handler kept alive by its signal connection; GLib's destroy notify releases it.
private final class SignalHandler<Argument> {
    let handler: @GtkActor (Argument) -> Void
    init(_ handler: @escaping @GtkActor (Argument) -> Void) { self.handler = handler }

    /// The handler from a trampoline's user data (transfer none: the connection keeps it).
    static func from(_ data: UnsafeMutableRawPointer?) -> SignalHandler { Unmanaged.fromOpaque(data!).takeUnretainedValue() }
}

/// `g_signal_connect_data` with `trampoline`, whose last argument is the handler; the handler is
/// retained until GLib drops the connection (the widget's finalization).
@GtkActor private func connect<Instance, Argument>(
    _ instance: UnsafeMutablePointer<Instance>, _ signal: String, _ trampoline: GCallback, _ handler: SignalHandler<Argument>
) {
    let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
        Unmanaged<AnyObject>.fromOpaque(data!).release()
    }
    g_signal_connect_data(instance, signal, trampoline, Unmanaged.passRetained(handler).toOpaque(), release, GConnectFlags(rawValue: 0))
}

/// GtkListBox::row-selected (box, row or NULL, data): the row's index.
@GtkActor private func connectRowSelected(_ list: UnsafeMutablePointer<GtkWidget>, _ handler: @escaping @GtkActor (Int?) -> Void) {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GtkListBoxRow>?, UnsafeMutableRawPointer?) -> Void = {
        _, row, data in
        let index = row.map { Int(gtk_list_box_row_get_index($0)) }
        GtkActor.assumeIsolated { SignalHandler<Int?>.from(data).handler(index) }
    }
    connect(list, "row-selected", unsafeBitCast(trampoline, to: GCallback.self), SignalHandler(handler))
}

/// GtkButton::clicked (button, data).
@GtkActor private func connectClicked(_ button: UnsafeMutablePointer<GtkWidget>, _ handler: @escaping @GtkActor () -> Void) {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        GtkActor.assumeIsolated { SignalHandler<Void>.from(data).handler(()) }
    }
    connect(button, "clicked", unsafeBitCast(trampoline, to: GCallback.self), SignalHandler(handler))
}

/// GObject::notify::<property> (object, pspec, data).
@GtkActor private func connectNotify<Instance>(
    _ object: UnsafeMutablePointer<Instance>, _ property: String, _ handler: @escaping @GtkActor () -> Void
) {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _, data in
        GtkActor.assumeIsolated { SignalHandler<Void>.from(data).handler(()) }
    }
    connect(object, "notify::\(property)", unsafeBitCast(trampoline, to: GCallback.self), SignalHandler(handler))
}

/// GtkWindow::close-request (window, data) -> gboolean: FALSE, so that GTK closes it.
@GtkActor private func connectCloseRequest(_ window: UnsafeMutablePointer<GtkWindow>, _ handler: @escaping @GtkActor () -> Void) {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
        GtkActor.assumeIsolated { SignalHandler<Void>.from(data).handler(()) }
        return 0
    }
    connect(window, "close-request", unsafeBitCast(trampoline, to: GCallback.self), SignalHandler(handler))
}
