internal import CGIO
internal import Glibc

/// GIO, GObject and GLib, opened with `dlopen` on first use instead of linked.
///
/// Linked, they cost every `waypost` process about 1.7 ms before `main` (a one-off comparison of two
/// small programs, with and without them: loading and relocating a dozen libraries, running GObject's
/// constructors), which `waypost open` never needs; it only talks D-Bus. CGIO still provides the headers (types and constants); each function used is looked
/// up here once, with the type Swift imports for it, and called through that pointer. Only this
/// layer may call GIO, and only through `GIO.`: `make release` refuses a binary with a direct
/// reference, then drops GIO from the libraries loaded at start.
enum GIO {
    /// `libgio-2.0.so.0` and, through its dependencies, GObject and GLib. A handle, set once.
    nonisolated(unsafe) private static let library: UnsafeMutableRawPointer = {
        guard let handle = dlopen("libgio-2.0.so.0", RTLD_LAZY | RTLD_GLOBAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            fail("cannot load GIO (libgio-2.0.so.0), which the desktop layer needs: \(reason)")
        }
        return handle
    }()

    private static func function<Function>(_ name: String, as type: Function.Type = Function.self) -> Function {
        guard let address = dlsym(library, name) else { fail("the installed GIO has no \(name)") }
        return unsafeBitCast(address, to: Function.self)
    }

    /// Without GIO the desktop layer cannot answer anything: say so and exit (EX_SOFTWARE).
    private static func fail(_ problem: String) -> Never {
        let line = "waypost: \(problem)\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(70)
    }

    static let g_app_info_get_all: @convention(c) () -> UnsafeMutablePointer<GList>? = function("g_app_info_get_all")
    static let g_app_info_get_all_for_type: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<GList>? = function("g_app_info_get_all_for_type")
    static let g_app_info_get_default_for_type: @convention(c) (UnsafePointer<CChar>?, gboolean) -> OpaquePointer? = function("g_app_info_get_default_for_type")
    static let g_app_info_get_id: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>? = function("g_app_info_get_id")
    static let g_app_info_get_name: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>? = function("g_app_info_get_name")
    static let g_app_info_get_recommended_for_type: @convention(c) (UnsafePointer<gchar>?) -> UnsafeMutablePointer<GList>? = function("g_app_info_get_recommended_for_type")
    static let g_app_info_monitor_get: @convention(c) () -> OpaquePointer? = function("g_app_info_monitor_get")
    static let g_app_launch_context_get_type: @convention(c) () -> GType = function("g_app_launch_context_get_type")
    static let g_app_launch_context_setenv: @convention(c) (UnsafeMutablePointer<GAppLaunchContext>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = function("g_app_launch_context_setenv")
    static let g_app_launch_context_unsetenv: @convention(c) (UnsafeMutablePointer<GAppLaunchContext>?, UnsafePointer<CChar>?) -> Void = function("g_app_launch_context_unsetenv")
    static let g_content_type_from_mime_type: @convention(c) (UnsafePointer<gchar>?) -> UnsafeMutablePointer<gchar>? = function("g_content_type_from_mime_type")
    static let g_content_type_guess: @convention(c) (UnsafePointer<gchar>?, UnsafePointer<guchar>?, gsize, UnsafeMutablePointer<gboolean>?) -> UnsafeMutablePointer<gchar>? = function("g_content_type_guess")
    static let g_content_type_is_a: @convention(c) (UnsafePointer<gchar>?, UnsafePointer<gchar>?) -> gboolean = function("g_content_type_is_a")
    static let g_desktop_app_info_get_boolean: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> gboolean = function("g_desktop_app_info_get_boolean")
    static let g_desktop_app_info_get_filename: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>? = function("g_desktop_app_info_get_filename")
    static let g_desktop_app_info_get_string: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? = function("g_desktop_app_info_get_string")
    static let g_desktop_app_info_get_string_list: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<gsize>?) -> UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>? = function("g_desktop_app_info_get_string_list")
    static let g_desktop_app_info_get_type: @convention(c) () -> GType = function("g_desktop_app_info_get_type")
    static let g_desktop_app_info_launch_uris_as_manager: @convention(c) (OpaquePointer?, UnsafeMutablePointer<GList>?, UnsafeMutablePointer<GAppLaunchContext>?, GSpawnFlags, GSpawnChildSetupFunc?, gpointer?, GDesktopAppLaunchCallback?, gpointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean = function("g_desktop_app_info_launch_uris_as_manager")
    static let g_desktop_app_info_new: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer? = function("g_desktop_app_info_new")
    static let g_dir_close: @convention(c) (OpaquePointer?) -> Void = function("g_dir_close")
    static let g_dir_open: @convention(c) (UnsafePointer<gchar>?, guint, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer? = function("g_dir_open")
    static let g_dir_read_name: @convention(c) (OpaquePointer?) -> UnsafePointer<gchar>? = function("g_dir_read_name")
    static let g_error_free: @convention(c) (UnsafeMutablePointer<GError>?) -> Void = function("g_error_free")
    static let g_file_test: @convention(c) (UnsafePointer<gchar>?, GFileTest) -> gboolean = function("g_file_test")
    static let g_filename_from_uri: @convention(c) (UnsafePointer<gchar>?, UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> UnsafeMutablePointer<gchar>? = function("g_filename_from_uri")
    static let g_find_program_in_path: @convention(c) (UnsafePointer<gchar>?) -> UnsafeMutablePointer<gchar>? = function("g_find_program_in_path")
    static let g_free: @convention(c) (gpointer?) -> Void = function("g_free")
    static let g_get_system_data_dirs: @convention(c) () -> UnsafePointer<UnsafePointer<gchar>?>? = function("g_get_system_data_dirs")
    static let g_get_user_config_dir: @convention(c) () -> UnsafePointer<gchar>? = function("g_get_user_config_dir")
    static let g_get_user_data_dir: @convention(c) () -> UnsafePointer<gchar>? = function("g_get_user_data_dir")
    static let g_key_file_get_boolean: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?, UnsafePointer<gchar>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean = function("g_key_file_get_boolean")
    static let g_key_file_get_string: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?, UnsafePointer<gchar>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> UnsafeMutablePointer<gchar>? = function("g_key_file_get_string")
    static let g_key_file_has_group: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?) -> gboolean = function("g_key_file_has_group")
    static let g_key_file_load_from_file: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?, GKeyFileFlags, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean = function("g_key_file_load_from_file")
    static let g_key_file_new: @convention(c) () -> OpaquePointer? = function("g_key_file_new")
    static let g_key_file_unref: @convention(c) (OpaquePointer?) -> Void = function("g_key_file_unref")
    static let g_list_append: @convention(c) (UnsafeMutablePointer<GList>?, gpointer?) -> UnsafeMutablePointer<GList>? = function("g_list_append")
    static let g_list_free: @convention(c) (UnsafeMutablePointer<GList>?) -> Void = function("g_list_free")
    static let g_list_free_full: @convention(c) (UnsafeMutablePointer<GList>?, GDestroyNotify?) -> Void = function("g_list_free_full")
    static let g_main_context_new: @convention(c) () -> OpaquePointer? = function("g_main_context_new")
    static let g_main_context_push_thread_default: @convention(c) (OpaquePointer?) -> Void = function("g_main_context_push_thread_default")
    static let g_main_loop_new: @convention(c) (OpaquePointer?, gboolean) -> OpaquePointer? = function("g_main_loop_new")
    static let g_main_loop_run: @convention(c) (OpaquePointer?) -> Void = function("g_main_loop_run")
    static let g_object_get_data: @convention(c) (UnsafeMutablePointer<GObject>?, UnsafePointer<gchar>?) -> gpointer? = function("g_object_get_data")
    static let g_object_new_with_properties: @convention(c) (GType, guint, UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafePointer<GValue>?) -> UnsafeMutablePointer<GObject>? = function("g_object_new_with_properties")
    static let g_object_set_data_full: @convention(c) (UnsafeMutablePointer<GObject>?, UnsafePointer<gchar>?, gpointer?, GDestroyNotify?) -> Void = function("g_object_set_data_full")
    static let g_object_unref: @convention(c) (gpointer?) -> Void = function("g_object_unref")
    static let g_quark_to_string: @convention(c) (GQuark) -> UnsafePointer<gchar>? = function("g_quark_to_string")
    static let g_shell_parse_argv: @convention(c) (UnsafePointer<gchar>?, UnsafeMutablePointer<gint>?, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean = function("g_shell_parse_argv")
    static let g_signal_connect_data: @convention(c) (gpointer?, UnsafePointer<gchar>?, GCallback?, gpointer?, GClosureNotify?, GConnectFlags) -> gulong = function("g_signal_connect_data")
    static let g_spawn_sync: @convention(c) (UnsafePointer<gchar>?, UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?, UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?, GSpawnFlags, GSpawnChildSetupFunc?, gpointer?, UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?, UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?, UnsafeMutablePointer<gint>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean = function("g_spawn_sync")
    static let g_strdup: @convention(c) (UnsafePointer<gchar>?) -> UnsafeMutablePointer<gchar>? = function("g_strdup")
    static let g_strfreev: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> Void = function("g_strfreev")
    static let g_type_check_instance_is_a: @convention(c) (UnsafeMutablePointer<GTypeInstance>?, GType) -> gboolean = function("g_type_check_instance_is_a")
    static let g_type_register_static_simple: @convention(c) (GType, UnsafePointer<gchar>?, guint, GClassInitFunc?, guint, GInstanceInitFunc?, GTypeFlags) -> GType = function("g_type_register_static_simple")
}
