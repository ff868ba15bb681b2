// GIO for Swift: content types now, desktop entries and launching later. gio-unix-2.0 (not plain
// gio-2.0) because GDesktopAppInfo's header lives only in its include directory.
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
