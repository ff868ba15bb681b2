// GTK 4 for the sample apps' windows (libgtk-4-dev); only Examples/GtkSupport imports it.
#include <gtk/gtk.h>
