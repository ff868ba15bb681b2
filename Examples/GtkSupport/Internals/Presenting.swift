internal import CGtk

/// Shows `window` and brings it to the front with the opener's token (nil: none), the one way that
/// works on both kinds of display; an app author can copy it. In C:
///
///     GdkDisplay *display = gtk_widget_get_display (GTK_WIDGET (window));
///     if (token != NULL && GDK_IS_WAYLAND_DISPLAY (display))
///       gdk_wayland_display_set_startup_notification_id (display, token);
///     else if (token != NULL)
///       gtk_window_set_startup_id (window, token);
///     gtk_window_present (window);
///
/// Wayland: GTK 4.8's `gtk_window_set_startup_id` does not reach the compositor for a mapped window
/// (`present` mints a token of its own, from an app that is not focused, which mutter and KWin
/// refuse); the display's startup notification id is what the next `present` activates with, as
/// GtkApplication does with `platform-data`. X11: the startup id becomes `_NET_STARTUP_ID`, and its
/// `_TIME` the time of the user's action.
@GtkActor func presentWindow(_ window: UnsafeMutablePointer<GtkWindow>, token: String?) {
    if let token {
        let display = gtk_widget_get_display(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWidget.self))
        if let display, g_type_check_instance_is_a(UnsafeMutableRawPointer(display).assumingMemoryBound(to: GTypeInstance.self),
                                                   gdk_wayland_display_get_type()) != 0 {
            gdk_wayland_display_set_startup_notification_id(display, token)
        } else {
            gtk_window_set_startup_id(window, token)
        }
    }
    gtk_window_present(window)
}
