// GTK 4 for `waypost choose`, opened with dlopen at run time (Chooser/Internals/GtkLibrary.swift):
// the binary must not link GTK, nor need GTK's headers to build, so the few functions the chooser
// calls are declared here by hand, as GTK 4, GDK, GIO, GObject and GLib declare them (stable ABIs).
#include <dlfcn.h>
#include <stddef.h>

// GTK's and GLib's object types, never looked into: pointers to them are opaque in Swift.
typedef struct _GtkWidget GtkWidget;
typedef struct _GtkWindow GtkWindow;
typedef struct _GtkBox GtkBox;
typedef struct _GtkLabel GtkLabel;
typedef struct _GtkImage GtkImage;
typedef struct _GtkButton GtkButton;
typedef struct _GtkCheckButton GtkCheckButton;
typedef struct _GtkListBox GtkListBox;
typedef struct _GtkListBoxRow GtkListBoxRow;
typedef struct _GtkScrolledWindow GtkScrolledWindow;
typedef struct _GtkEventController GtkEventController;
typedef struct _GdkDisplay GdkDisplay;
typedef struct _GAppInfo GAppInfo;
typedef struct _GAppLaunchContext GAppLaunchContext;
typedef struct _GDesktopAppInfo GDesktopAppInfo;
typedef struct _GIcon GIcon;
typedef struct _GList GList;
typedef struct _GMainContext GMainContext;

typedef int gboolean;
typedef void (*GCallback)(void);

// GTK's enumerations, as ints: the values the chooser passes.
enum {
    WAYPOST_GTK_ORIENTATION_HORIZONTAL = 0,
    WAYPOST_GTK_ORIENTATION_VERTICAL = 1,
    WAYPOST_GTK_ALIGN_END = 2,
    WAYPOST_GTK_SELECTION_BROWSE = 2,
    WAYPOST_GTK_POLICY_AUTOMATIC = 1,
    WAYPOST_GTK_POLICY_NEVER = 2,
    WAYPOST_GTK_PHASE_CAPTURE = 1,
    WAYPOST_GTK_ICON_SIZE_LARGE = 2,
    WAYPOST_PANGO_WRAP_WORD_CHAR = 2,
};

// Each function as F(return type, name, parameters): its table field and its lookup by that name.
#define WAYPOST_GTK_FUNCTIONS(F) \
    F(gboolean, gtk_init_check, (void)) \
    F(GtkWidget *, gtk_window_new, (void)) \
    F(void, gtk_window_set_title, (GtkWindow *window, const char *title)) \
    F(void, gtk_window_set_default_size, (GtkWindow *window, int width, int height)) \
    F(void, gtk_window_set_child, (GtkWindow *window, GtkWidget *child)) \
    F(void, gtk_window_set_default_widget, (GtkWindow *window, GtkWidget *widget)) \
    F(void, gtk_window_set_focus, (GtkWindow *window, GtkWidget *focus)) \
    F(void, gtk_window_present, (GtkWindow *window)) \
    F(GtkWidget *, gtk_window_get_focus, (GtkWindow *window)) \
    F(GtkWidget *, gtk_box_new, (int orientation, int spacing)) \
    F(void, gtk_box_append, (GtkBox *box, GtkWidget *child)) \
    F(GtkWidget *, gtk_label_new, (const char *text)) \
    F(void, gtk_label_set_text, (GtkLabel *label, const char *text)) \
    F(void, gtk_label_set_xalign, (GtkLabel *label, float xalign)) \
    F(void, gtk_label_set_wrap, (GtkLabel *label, gboolean wrap)) \
    F(void, gtk_label_set_wrap_mode, (GtkLabel *label, int mode)) \
    F(void, gtk_label_set_max_width_chars, (GtkLabel *label, int chars)) \
    F(GtkWidget *, gtk_image_new, (void)) \
    F(GtkWidget *, gtk_image_new_from_gicon, (GIcon *icon)) \
    F(void, gtk_image_set_icon_size, (GtkImage *image, int size)) \
    F(GtkWidget *, gtk_button_new_with_mnemonic, (const char *label)) \
    F(GtkWidget *, gtk_check_button_new_with_mnemonic, (const char *label)) \
    F(void, gtk_check_button_set_group, (GtkCheckButton *button, GtkCheckButton *group)) \
    F(void, gtk_check_button_set_active, (GtkCheckButton *button, gboolean active)) \
    F(gboolean, gtk_check_button_get_active, (GtkCheckButton *button)) \
    F(GtkWidget *, gtk_list_box_new, (void)) \
    F(void, gtk_list_box_append, (GtkListBox *box, GtkWidget *child)) \
    F(void, gtk_list_box_set_selection_mode, (GtkListBox *box, int mode)) \
    F(void, gtk_list_box_set_activate_on_single_click, (GtkListBox *box, gboolean single)) \
    F(void, gtk_list_box_select_row, (GtkListBox *box, GtkListBoxRow *row)) \
    F(GtkListBoxRow *, gtk_list_box_get_selected_row, (GtkListBox *box)) \
    F(GtkListBoxRow *, gtk_list_box_get_row_at_index, (GtkListBox *box, int index)) \
    F(int, gtk_list_box_row_get_index, (GtkListBoxRow *row)) \
    F(GtkWidget *, gtk_scrolled_window_new, (void)) \
    F(void, gtk_scrolled_window_set_child, (GtkScrolledWindow *window, GtkWidget *child)) \
    F(void, gtk_scrolled_window_set_policy, (GtkScrolledWindow *window, int horizontal, int vertical)) \
    F(void, gtk_scrolled_window_set_propagate_natural_height, (GtkScrolledWindow *window, gboolean propagate)) \
    F(void, gtk_scrolled_window_set_max_content_height, (GtkScrolledWindow *window, int height)) \
    F(GtkEventController *, gtk_event_controller_key_new, (void)) \
    F(void, gtk_event_controller_set_propagation_phase, (GtkEventController *controller, int phase)) \
    F(void, gtk_widget_add_controller, (GtkWidget *widget, GtkEventController *controller)) \
    F(void, gtk_widget_set_sensitive, (GtkWidget *widget, gboolean sensitive)) \
    F(gboolean, gtk_widget_has_focus, (GtkWidget *widget)) \
    F(gboolean, gtk_widget_grab_focus, (GtkWidget *widget)) \
    F(GtkWidget *, gtk_widget_get_parent, (GtkWidget *widget)) \
    F(void, gtk_widget_set_halign, (GtkWidget *widget, int align)) \
    F(void, gtk_widget_set_margin_top, (GtkWidget *widget, int margin)) \
    F(void, gtk_widget_set_margin_bottom, (GtkWidget *widget, int margin)) \
    F(void, gtk_widget_set_margin_start, (GtkWidget *widget, int margin)) \
    F(void, gtk_widget_set_margin_end, (GtkWidget *widget, int margin)) \
    F(void, gtk_widget_add_css_class, (GtkWidget *widget, const char *css_class)) \
    F(GdkDisplay *, gdk_display_get_default, (void)) \
    F(GAppLaunchContext *, gdk_display_get_app_launch_context, (GdkDisplay *display)) \
    F(char *, g_app_launch_context_get_startup_notify_id, (GAppLaunchContext *context, GAppInfo *info, GList *files)) \
    F(GDesktopAppInfo *, g_desktop_app_info_new, (const char *desktop_id)) \
    F(const char *, g_app_info_get_display_name, (GAppInfo *info)) \
    F(GIcon *, g_app_info_get_icon, (GAppInfo *info)) \
    F(unsigned long, g_signal_connect_data, \
      (void *instance, const char *detailed_signal, GCallback handler, void *data, void (*destroy)(void *data, void *closure), int flags)) \
    F(void, g_set_prgname, (const char *name)) \
    F(gboolean, g_main_context_iteration, (GMainContext *context, gboolean may_block)) \
    F(void, g_object_unref, (void *object)) \
    F(void, g_free, (void *memory))

/// Pointers to the functions above, each typed as declared there.
typedef struct WaypostGtkFunctions {
#define WAYPOST_GTK_FIELD(type, name, parameters) type (*name) parameters;
    WAYPOST_GTK_FUNCTIONS(WAYPOST_GTK_FIELD)
#undef WAYPOST_GTK_FIELD
} WaypostGtkFunctions;

/// Looks each function up in `library`, a dlopen handle of GTK (GLib's functions come from the
/// libraries GTK needs). Returns the name of the first one missing (`functions` is then
/// incomplete), or NULL when all were found.
static inline const char *waypost_gtk_resolve(void *library, WaypostGtkFunctions *functions) {
#define WAYPOST_GTK_LOOKUP(type, name, parameters) \
    if ((functions->name = (type (*) parameters)dlsym(library, #name)) == NULL) return #name;
    WAYPOST_GTK_FUNCTIONS(WAYPOST_GTK_LOOKUP)
#undef WAYPOST_GTK_LOOKUP
    return NULL;
}
