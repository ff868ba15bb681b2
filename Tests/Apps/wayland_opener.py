#!/usr/bin/python3
"""An app that opens links as GTK apps do, for the Wayland tests (Tests/WaylandTests).

A GTK 4 window titled TITLE (default "Opener"). Return in the window opens the link set by
SetLink with the display's launch context, as a GTK app opens a link the user clicked:
Gio.AppInfo.launch_default_for_uri(uri, display.get_app_launch_context()); GIO asks the
compositor for an activation token for it (xdg-activation, from the focused window and the last
user action) and hands it to the handler. Over D-Bus, as `io.waypost.test.Opener` on the session
bus (interface and path of the same name):

  SetLink(s uri)         the link Return opens
  Open(s uri)            opens it now (for a compositor the test cannot type into: KWin --virtual)
  Token() -> s           a token from the launch context, as GIO would give a program it launches
  OpenWithPortal(s uri)  hands it to org.freedesktop.portal.OpenURI with such a token, as a
                         sandboxed app (or Chromium) does

Each outcome is a line on stdout: "opened URI", "failed URI: MESSAGE", "token TOKEN".

Usage: wayland_opener.py [TITLE]
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402

NAME = "io.waypost.test.Opener"
INTERFACE = """
<node>
  <interface name="io.waypost.test.Opener">
    <method name="SetLink"><arg type="s" direction="in"/></method>
    <method name="Open"><arg type="s" direction="in"/></method>
    <method name="Token"><arg type="s" direction="out"/></method>
    <method name="OpenWithPortal"><arg type="s" direction="in"/></method>
  </interface>
</node>"""


class Opener:
    def __init__(self, title):
        self.link = None
        self.window = Gtk.Window(title=title, default_width=360, default_height=240)
        self.window.set_child(Gtk.Label(label="Return opens the link"))
        keys = Gtk.EventControllerKey()
        keys.connect("key-pressed", self.on_key)
        self.window.add_controller(keys)
        self.window.connect("close-request", lambda _: loop.quit() or False)
        self.window.present()
        bus = Gio.bus_get_sync(Gio.BusType.SESSION)
        bus.register_object("/" + NAME.replace(".", "/"), Gio.DBusNodeInfo.new_for_xml(INTERFACE).interfaces[0], self.on_call)
        Gio.bus_own_name_on_connection(bus, NAME, Gio.BusNameOwnerFlags.NONE, None, None)

    def on_key(self, _controller, keyval, _keycode, _state):
        if keyval != Gdk.KEY_Return or not self.link:
            return False
        self.open(self.link)
        return True

    def open(self, uri):
        """As a GTK app opens a link: the display's launch context carries the token."""
        context = self.window.get_display().get_app_launch_context()

        def done(_source, result):
            try:
                Gio.AppInfo.launch_default_for_uri_finish(result)
                print(f"opened {uri}", flush=True)
            except GLib.Error as error:
                print(f"failed {uri}: {error.message}", flush=True)
        Gio.AppInfo.launch_default_for_uri_async(uri, context, None, done)

    def token(self):
        """The token GIO would put in a launched program's environment (any entry will do: the
        Wayland launch context asks the compositor whatever the app)."""
        info = Gio.AppInfo.create_from_commandline("/bin/true", "true", Gio.AppInfoCreateFlags.SUPPORTS_STARTUP_NOTIFICATION)
        token = self.window.get_display().get_app_launch_context().get_startup_notify_id(info, []) or ""
        print(f"token {token}", flush=True)
        return token

    def open_with_portal(self, uri):
        """OpenURI(parent_window, uri, {activation_token}): the portal launches the handler."""
        def done(bus, result):
            try:
                bus.call_finish(result)
                print(f"opened {uri}", flush=True)
            except GLib.Error as error:
                print(f"failed {uri}: {error.message}", flush=True)
        options = {"activation_token": GLib.Variant("s", self.token())}
        Gio.bus_get_sync(Gio.BusType.SESSION).call(
            "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.OpenURI", "OpenURI",
            GLib.Variant("(ssa{sv})", ("", uri, options)), None, Gio.DBusCallFlags.NONE, -1, None, done)

    def on_call(self, _bus, _sender, _path, _interface, method, parameters, invocation):
        # A call can overtake the compositor's keyboard enter (another socket): a round trip first,
        # so that GTK knows its focused surface before it asks for a token, as it does for any input.
        self.window.get_display().sync()
        if method == "SetLink":
            self.link = parameters.unpack()[0]
            invocation.return_value(None)
        elif method == "Open":
            self.open(parameters.unpack()[0])
            invocation.return_value(None)
        elif method == "OpenWithPortal":
            self.open_with_portal(parameters.unpack()[0])
            invocation.return_value(None)
        elif method == "Token":
            invocation.return_value(GLib.Variant("(s)", (self.token(),)))


if __name__ == "__main__":
    if not Gtk.init_check():
        sys.exit("wayland_opener: cannot open a display")
    loop = GLib.MainLoop()
    opener = Opener(sys.argv[1] if len(sys.argv) > 1 else "Opener")
    loop.run()
