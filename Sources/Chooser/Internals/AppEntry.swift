internal import CGtkRuntime

/// An installed desktop entry as GIO reads it (`g_desktop_app_info_new`, transfer full, released
/// with `g_object_unref`): what a row shows, and what the activation token is asked for.
final class AppEntry {
    let info: OpaquePointer

    /// The entry `id` (without `.desktop`) names; nil when none is installed under it.
    init?(id: String) {
        guard let info = gtk.g_desktop_app_info_new(id + ".desktop") else { return nil }
        self.info = info
    }

    deinit { gtk.g_object_unref(UnsafeMutableRawPointer(info)) }

    /// Its Name= in the user's language (transfer none). `g_app_info_get_display_name`.
    var displayName: String? {
        gtk.g_app_info_get_display_name(info).map { String(cString: $0) }
    }

    /// An image of its Icon=, GTK's large icon size; none when it names no icon.
    /// `g_app_info_get_icon` (transfer none), `gtk_image_new_from_gicon`.
    func makeImage() -> OpaquePointer? {
        guard let icon = gtk.g_app_info_get_icon(info) else { return nil }
        return gtk.gtk_image_new_from_gicon(icon)
    }

    /// A token for the window this entry's app will show: an xdg-activation token on Wayland, a
    /// startup id on X11; empty when GDK gives none. `gdk_display_get_app_launch_context` (transfer
    /// full), `g_app_launch_context_get_startup_notify_id` (transfer full).
    func activationToken() -> String {
        guard let display = gtk.gdk_display_get_default(),
              let context = gtk.gdk_display_get_app_launch_context(display)
        else { return "" }
        defer { gtk.g_object_unref(UnsafeMutableRawPointer(context)) }
        guard let id = gtk.g_app_launch_context_get_startup_notify_id(context, info, nil) else { return "" }
        defer { gtk.g_free(id) }
        return String(cString: id)
    }
}
