/* gtk4-floor: bench-chooser's floor for a chooser that is a process of its own (chooser-bench.py):
 * a C program linked with GTK 4 the usual way that shows a window of the chooser's shape (a heading,
 * a list of two apps, two radio buttons, Cancel and Open) titled "chooser-bench floor", and exits on
 * Escape. What any new GTK 4 process pays before its first window is mapped.
 *
 *   cc -O2 -o gtk4-floor gtk4-floor.c $(pkg-config --cflags --libs gtk4)
 */
#include <gtk/gtk.h>

static gboolean done;

static gboolean key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state, gpointer data) {
    (void)controller; (void)keycode; (void)state; (void)data;
    if (keyval == GDK_KEY_Escape) done = TRUE;
    return keyval == GDK_KEY_Escape;
}

int main(void) {
    if (!gtk_init_check()) return 3;
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "chooser-bench floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 440, -1);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_box_append(GTK_BOX(box), gtk_label_new("Open “benchpick://x” with"));
    GtkWidget *list = gtk_list_box_new();
    gtk_list_box_append(GTK_LIST_BOX(list), gtk_label_new("Sample A"));
    gtk_list_box_append(GTK_LIST_BOX(list), gtk_label_new("Sample B"));
    gtk_box_append(GTK_BOX(box), list);
    GtkWidget *once = gtk_check_button_new_with_mnemonic("Just _once");
    GtkWidget *always = gtk_check_button_new_with_mnemonic("_Always");
    gtk_check_button_set_group(GTK_CHECK_BUTTON(always), GTK_CHECK_BUTTON(once));
    gtk_check_button_set_active(GTK_CHECK_BUTTON(once), TRUE);
    gtk_box_append(GTK_BOX(box), once);
    gtk_box_append(GTK_BOX(box), always);
    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(buttons), gtk_button_new_with_mnemonic("_Cancel"));
    gtk_box_append(GTK_BOX(buttons), gtk_button_new_with_mnemonic("_Open"));
    gtk_box_append(GTK_BOX(box), buttons);
    gtk_window_set_child(GTK_WINDOW(window), box);
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(key_pressed), NULL);
    gtk_widget_add_controller(window, keys);
    gtk_window_present(GTK_WINDOW(window));
    while (!done) g_main_context_iteration(NULL, TRUE);
    gtk_window_destroy(GTK_WINDOW(window));
    return 0;
}
