// GIO for the desktop layer; GDesktopAppInfo's header lives only in gio-unix-2.0, not in <gio/gio.h>.
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
