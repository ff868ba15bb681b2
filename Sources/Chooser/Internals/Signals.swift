internal import CGtkRuntime

// GTK's signals reach the chooser through C functions that take it back from their user data
// (unretained: `ChooserWindow.run()` keeps it alive for as long as the window can emit anything).

private func chooser(_ data: UnsafeMutableRawPointer?) -> ChooserWindow {
    Unmanaged<ChooserWindow>.fromOpaque(data!).takeUnretainedValue()
}

/// "row-activated" (a double click on a row).
private let onRowActivated: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, _, data in
    chooser(data).pick()
}

/// "clicked" on Open.
private let onOpenClicked: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    chooser(data).pick()
}

/// "clicked" on Cancel.
private let onCancelClicked: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    chooser(data).cancel()
}

/// "toggled" on the "Always" radio.
private let onAlwaysToggled: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    chooser(data).alwaysToggled()
}

/// "close-request": the window's close button or the window manager. FALSE lets GTK close it.
private let onCloseRequested: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
    chooser(data).cancel()
    return 0
}

/// GtkEventControllerKey's "key-pressed" (keyval, keycode, modifiers): TRUE when handled.
private let onKeyPressed: @convention(c) (OpaquePointer?, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> gboolean = {
    _, keyval, _, _, data in
    chooser(data).keyPressed(keyval) ? 1 : 0
}

extension ChooserWindow {
    /// Connects every handler above; the key controller runs in the capture phase, before the
    /// focused widget (a radio would take Return as "toggle"). `g_signal_connect_data`.
    func connectSignals(window: OpaquePointer, list: OpaquePointer, always: OpaquePointer, cancel: OpaquePointer, open: OpaquePointer) {
        let keys = gtk.gtk_event_controller_key_new()!
        gtk.gtk_event_controller_set_propagation_phase(keys, Int32(WAYPOST_GTK_PHASE_CAPTURE))
        gtk.gtk_widget_add_controller(window, keys)  // the window takes ownership of the controller
        connect(keys, "key-pressed", unsafeBitCast(onKeyPressed, to: GCallback.self))
        connect(list, "row-activated", unsafeBitCast(onRowActivated, to: GCallback.self))
        connect(open, "clicked", unsafeBitCast(onOpenClicked, to: GCallback.self))
        connect(cancel, "clicked", unsafeBitCast(onCancelClicked, to: GCallback.self))
        connect(always, "toggled", unsafeBitCast(onAlwaysToggled, to: GCallback.self))
        connect(window, "close-request", unsafeBitCast(onCloseRequested, to: GCallback.self))
    }

    /// `handler` is a C function of the signal's own type, cast where its type is concrete (a generic
    /// parameter would hold it as a Swift closure, of another size).
    private func connect(_ instance: OpaquePointer, _ signal: String, _ handler: GCallback) {
        _ = gtk.g_signal_connect_data(
            UnsafeMutableRawPointer(instance), signal, handler, Unmanaged.passUnretained(self).toOpaque(), nil, 0)
    }
}
