#if WAYPOST_STATIC_LIBDBUS
import Glibc

// `make release` links libdbus-1.a into `waypost` (see "Start-up" in the README): its shared library
// would bring libsystemd and the six libraries it needs into every `waypost open`, only for these
// two functions. libdbus calls them for a single purpose, a server listening on sockets that systemd
// passed (a `systemd:` address, which only dbus-daemon listens on). `waypost` never listens for
// connections, so it answers as a process systemd passed no sockets to.

/// No sockets were passed to this process (what libsystemd answers when `LISTEN_PID` is not ours).
@_cdecl("sd_listen_fds")
func systemdListenedSockets(_ unsetEnvironment: Int32) -> Int32 { 0 }

/// Never called once `sd_listen_fds` reports no sockets; an error if it were.
@_cdecl("sd_is_socket")
func systemdIsSocket(_ descriptor: Int32, _ family: Int32, _ type: Int32, _ listening: Int32) -> Int32 {
    -EOPNOTSUPP
}
#endif
