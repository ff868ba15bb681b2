// Why this shim exists: SwiftPM's system-library target needs one umbrella header for libdbus-1, and the
// connection's loop thread needs eventfd(2), which Glibc's Swift module map leaves out.
#ifndef WAYPOST_CDBUS_SHIM_H
#define WAYPOST_CDBUS_SHIM_H
#include <dbus/dbus.h>
#include <sys/eventfd.h>
#endif
