// GIO for the desktop layer; GDesktopAppInfo's header lives only in gio-unix-2.0, not in <gio/gio.h>.
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#include <dlfcn.h>

// The GIO, GObject and GLib functions the desktop layer calls. It opens GIO with dlopen (see
// Desktop/Internals/GIOLibrary.swift), so each is written here once: its table field takes its
// type from the declaration in the headers above and its lookup takes its name, so every call
// is checked against GIO's own headers and a field cannot be looked up under another name.
#define WAYPOST_GIO_FUNCTIONS(F) \
    F(g_app_info_get_all) \
    F(g_app_info_get_all_for_type) \
    F(g_app_info_get_default_for_type) \
    F(g_app_info_get_id) \
    F(g_app_info_get_name) \
    F(g_app_info_get_recommended_for_type) \
    F(g_app_info_monitor_get) \
    F(g_app_launch_context_get_type) \
    F(g_app_launch_context_setenv) \
    F(g_app_launch_context_unsetenv) \
    F(g_bus_get_sync) \
    F(g_content_type_from_mime_type) \
    F(g_content_type_guess) \
    F(g_dbus_connection_set_exit_on_close) \
    F(g_content_type_is_a) \
    F(g_desktop_app_info_get_boolean) \
    F(g_desktop_app_info_get_filename) \
    F(g_desktop_app_info_get_is_hidden) \
    F(g_desktop_app_info_get_string) \
    F(g_desktop_app_info_get_string_list) \
    F(g_desktop_app_info_get_type) \
    F(g_desktop_app_info_launch_uris_as_manager) \
    F(g_desktop_app_info_new) \
    F(g_desktop_app_info_new_from_filename) \
    F(g_desktop_app_info_new_from_keyfile) \
    F(g_dir_close) \
    F(g_dir_open) \
    F(g_dir_read_name) \
    F(g_error_free) \
    F(g_file_monitor_directory) \
    F(g_file_test) \
    F(g_filename_from_uri) \
    F(g_find_program_in_path) \
    F(g_free) \
    F(g_get_system_data_dirs) \
    F(g_get_user_cache_dir) \
    F(g_get_user_config_dir) \
    F(g_get_user_data_dir) \
    F(g_get_user_state_dir) \
    F(g_key_file_get_boolean) \
    F(g_key_file_get_string) \
    F(g_key_file_has_group) \
    F(g_key_file_load_from_file) \
    F(g_key_file_new) \
    F(g_key_file_remove_key) \
    F(g_key_file_set_string) \
    F(g_key_file_unref) \
    F(g_list_append) \
    F(g_list_free) \
    F(g_list_free_full) \
    F(g_main_context_new) \
    F(g_main_context_push_thread_default) \
    F(g_main_loop_new) \
    F(g_main_loop_run) \
    F(g_object_get_data) \
    F(g_object_new_with_properties) \
    F(g_object_set_data_full) \
    F(g_object_unref) \
    F(g_quark_to_string) \
    F(g_shell_parse_argv) \
    F(g_signal_connect_data) \
    F(g_spawn_sync) \
    F(g_strdup) \
    F(g_strfreev) \
    F(g_type_check_instance_is_a) \
    F(g_type_register_static_simple) \
    F(g_vfs_get_file_for_path) \
    F(g_vfs_get_local)

/// Pointers to the functions above, each typed as its header declares it.
typedef struct WaypostGIOFunctions {
#define WAYPOST_GIO_FIELD(name) __typeof__(name) *name;
    WAYPOST_GIO_FUNCTIONS(WAYPOST_GIO_FIELD)
#undef WAYPOST_GIO_FIELD
} WaypostGIOFunctions;

/// Looks each function up in `library`, a dlopen handle. Returns the name of the first one the
/// library lacks (`functions` is then incomplete), or NULL when it has them all.
static inline const char *waypost_gio_resolve(void *library, WaypostGIOFunctions *functions) {
#define WAYPOST_GIO_LOOKUP(name) \
    if ((functions->name = (__typeof__(name) *)dlsym(library, #name)) == NULL) return #name;
    WAYPOST_GIO_FUNCTIONS(WAYPOST_GIO_LOOKUP)
#undef WAYPOST_GIO_LOOKUP
    return NULL;
}
