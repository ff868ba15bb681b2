// GTK 4 for the sample apps' windows (libgtk-4-dev); only Examples/GtkSupport imports it.
#include <gtk/gtk.h>
// For presenting a window with the opener's token on Wayland (Internals/Presenting.swift).
#include <gdk/wayland/gdkwayland.h>
