// libwayland-client for the desktop layer, headers only (libwayland-dev): the library is opened with
// dlopen (Desktop/Internals/WaylandClient.swift), so that no waypost process loads it unless it
// tells the compositor of a user action, and the binary runs where there is none.
#include <wayland-client-core.h>
#include <dlfcn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

// The functions used, each typed by its declaration in the header above (see CGIO's table).
#define WAYPOST_WAYLAND_FUNCTIONS(F) \
    F(wl_display_connect) \
    F(wl_display_disconnect) \
    F(wl_display_get_fd) \
    F(wl_display_roundtrip) \
    F(wl_proxy_add_listener) \
    F(wl_proxy_destroy) \
    F(wl_proxy_get_version) \
    F(wl_proxy_marshal_flags)

typedef struct WaypostWaylandFunctions {
#define WAYPOST_WAYLAND_FIELD(name) __typeof__(name) *name;
    WAYPOST_WAYLAND_FUNCTIONS(WAYPOST_WAYLAND_FIELD)
#undef WAYPOST_WAYLAND_FIELD
    /// The library's description of wl_registry (data, not a function).
    const struct wl_interface *registry_interface;
} WaypostWaylandFunctions;

/// Looks each function, and wl_registry_interface, up in `library`, a dlopen handle. Returns the
/// name of the first one missing, or NULL when all are there.
static inline const char *waypost_wayland_resolve(void *library, WaypostWaylandFunctions *functions) {
#define WAYPOST_WAYLAND_LOOKUP(name) \
    if ((functions->name = (__typeof__(name) *)dlsym(library, #name)) == NULL) return #name;
    WAYPOST_WAYLAND_FUNCTIONS(WAYPOST_WAYLAND_LOOKUP)
#undef WAYPOST_WAYLAND_LOOKUP
    if ((functions->registry_interface = (const struct wl_interface *)dlsym(library, "wl_registry_interface")) == NULL)
        return "wl_registry_interface";
    return NULL;
}

// gtk_shell1 as GTK's gtk-shell.xml specifies it up to version 3: its requests in order, for their
// opcodes (notify_launch is the fourth). Only notify_launch is ever sent; it carries no object, so no
// argument needs an interface.
static const struct wl_interface *waypost_gtk_shell1_types[] = { NULL, NULL };
static const struct wl_message waypost_gtk_shell1_requests[] = {
    { "get_gtk_surface", "no", waypost_gtk_shell1_types },
    { "set_startup_id", "?s", waypost_gtk_shell1_types },
    { "system_bell", "?o", waypost_gtk_shell1_types },
    { "notify_launch", "3s", waypost_gtk_shell1_types },
};
static const struct wl_message waypost_gtk_shell1_events[] = {
    { "capabilities", "u", waypost_gtk_shell1_types },
};
static const struct wl_interface waypost_gtk_shell1_interface = {
    "gtk_shell1", 3, 4, waypost_gtk_shell1_requests, 1, waypost_gtk_shell1_events,
};
enum { WAYPOST_DISPLAY_GET_REGISTRY = 1, WAYPOST_REGISTRY_BIND = 0, WAYPOST_GTK_SHELL1_NOTIFY_LAUNCH = 3 };

typedef struct { uint32_t name, version; } WaypostWaylandGlobal;

static void waypost_wayland_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)registry;
    if (strcmp(interface, "gtk_shell1") == 0) *(WaypostWaylandGlobal *)data = (WaypostWaylandGlobal){ name, version };
}
static void waypost_wayland_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;
}
static void (*const waypost_wayland_registry_listener[])(void) = {
    (void (*)(void))waypost_wayland_global, (void (*)(void))waypost_wayland_global_remove,
};

typedef enum {
    WAYPOST_NOTIFIED = 0,
    WAYPOST_NO_DISPLAY = 1,          // no compositor at `display_name`
    WAYPOST_NO_GTK_SHELL = 2,        // the compositor offers no gtk_shell1 of version 3 or later
    WAYPOST_WAYLAND_FAILED = 3,      // the connection broke, or the compositor did not answer in time
} WaypostNotifyLaunchResult;

/// Tells the compositor at `display_name` that the user just started something identified by
/// `startup_id` (gtk_shell1.notify_launch, what GTK's launch context does), and waits until it has
/// read it, `timeout_ms` at most per round trip. mutter then honours `startup_id` as an activation
/// token until the user's next input.
static inline WaypostNotifyLaunchResult waypost_wayland_notify_launch(
    const WaypostWaylandFunctions *wl, const char *display_name, const char *startup_id, int timeout_ms
) {
    struct wl_display *display = wl->wl_display_connect(display_name);
    if (display == NULL) return WAYPOST_NO_DISPLAY;
    // A compositor that stops answering fails the read, and so the round trip, instead of hanging it.
    struct timeval timeout = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    setsockopt(wl->wl_display_get_fd(display), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    struct wl_proxy *registry = wl->wl_proxy_marshal_flags(
        (struct wl_proxy *)display, WAYPOST_DISPLAY_GET_REGISTRY, wl->registry_interface,
        wl->wl_proxy_get_version((struct wl_proxy *)display), 0, NULL);
    WaypostWaylandGlobal shell = { 0, 0 };
    WaypostNotifyLaunchResult result = WAYPOST_WAYLAND_FAILED;
    if (registry != NULL) {
        wl->wl_proxy_add_listener(registry, (void (**)(void))waypost_wayland_registry_listener, &shell);
        if (wl->wl_display_roundtrip(display) < 0) {
            result = WAYPOST_WAYLAND_FAILED;
        } else if (shell.name == 0 || shell.version < 3) {
            result = WAYPOST_NO_GTK_SHELL;
        } else {
            struct wl_proxy *bound = wl->wl_proxy_marshal_flags(
                registry, WAYPOST_REGISTRY_BIND, &waypost_gtk_shell1_interface, 3, 0,
                shell.name, waypost_gtk_shell1_interface.name, 3, NULL);
            if (bound != NULL) {
                wl->wl_proxy_marshal_flags(bound, WAYPOST_GTK_SHELL1_NOTIFY_LAUNCH, NULL, 3, 0, startup_id);
                result = wl->wl_display_roundtrip(display) < 0 ? WAYPOST_WAYLAND_FAILED : WAYPOST_NOTIFIED;
                wl->wl_proxy_destroy(bound);
            }
        }
        wl->wl_proxy_destroy(registry);
    }
    wl->wl_display_disconnect(display);
    return result;
}
