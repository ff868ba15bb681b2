#!/usr/bin/python3
"""Contacts with real windows in Python: a Waypost participant written from dbus/*.xml alone.

GTK 4 through PyGObject, D-Bus through Gio (GDBus), and nothing of Waypost's but the contract: the
object it serves is described by dbus/io.waypost.Application1.xml itself. A template for GNOME
developers, and the tests' proof that another language takes part.

Each window is a scene. Its selected contact is what it prefers (SetExternalEvents); with nothing
selected it allows any link. A link (OpenURL) or a continued activity selects the contact and
presents the window with the opener's token (present_with_token: one way for X11 and Wayland); a
link no window takes comes as CreateScene: a new window. Closing a window removes its scene; the
last one ends the app. It does not register again if the dispatcher restarts (sample_app.py shows
how).

Usage: contacts_gtk.py   (started by the dispatcher from its desktop entry, Exec=/usr/bin/python3 …)
"""
import os
import sys
from urllib.parse import parse_qs, urlsplit

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402

try:
    # Before the display opens, or PyGObject wraps it as a plain Gdk.Display (no Wayland methods).
    gi.require_version("GdkWayland", "4.0")
    from gi.repository import GdkWayland  # noqa: E402
except (ValueError, ImportError):
    GdkWayland = None

CONTRACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dbus")
APP_ID = "io.waypost.example.ContactsPython"
OBJECT_PATH = "/io/waypost/example/ContactsPython"
DISPATCHER, DISPATCHER_PATH, DISPATCHER_IFACE = "io.waypost.Dispatcher", "/io/waypost/Dispatcher", "io.waypost.Dispatcher1"
ACTIVITY_TYPE = "io.waypost.example.contact.show"
CONTACTS = {"0F3A-ADA": "Ada Lovelace", "51C2-BOB": "Bob Kahn", "9E07-CAROL": "Carol Shaw", "D41D-DAN": "Dan Bricklin"}


class ContactWindow:
    """One window: the contact list and its selection, which decide what links the window takes."""

    def __init__(self, app, scene_id):
        self.app, self.scene_id, self.selection, self.quiet = app, scene_id, None, False
        self.window = Gtk.Window(title="Contacts", default_width=420, default_height=360)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin_top=18, margin_bottom=18,
                      margin_start=18, margin_end=18)
        self.heading = Gtk.Label(label="Select a contact")
        self.heading.add_css_class("title-2")
        self.list = Gtk.ListBox(selection_mode=Gtk.SelectionMode.SINGLE)
        for name in CONTACTS.values():
            self.list.append(Gtk.Label(label=name, xalign=0, margin_top=6, margin_bottom=6))
        button = Gtk.Button(label="New Window")
        button.connect("clicked", lambda _: app.new_window().present({}))
        for child in (self.heading, self.list, button):
            box.append(child)
        self.window.set_child(box)
        # GTK 4.8 selects the list's first row when the window's first focus lands on it.
        self.window.set_focus(button)
        self.list.connect("row-selected", self.on_row_selected)
        self.window.connect("notify::is-active", self.on_active)
        self.window.connect("close-request", self.on_close)

    def on_row_selected(self, _list, row):
        if not self.quiet:
            self.select(list(CONTACTS)[row.get_index()] if row else None)

    def on_active(self, window, _pspec):
        if window.is_active():
            self.app.call("ActivateScene", GLib.Variant("(s)", (self.scene_id,)))

    def on_close(self, _window):
        self.app.closed(self)
        return False  # let GTK destroy it

    def select(self, contact):
        """The selection changed: so do the title, the scene's sets and the activity it publishes."""
        self.selection = contact if contact in CONTACTS else None
        name = CONTACTS.get(self.selection)
        self.quiet = True
        if self.selection:
            self.list.select_row(self.list.get_row_at_index(list(CONTACTS).index(self.selection)))
        else:
            self.list.unselect_all()
        self.quiet = False
        self.window.set_title(f"{name} – Contacts" if name else "Contacts")
        self.heading.set_text(name or "Select a contact")
        preferring, allowing = ([self.selection], []) if self.selection else ([], ["*"])
        self.app.call("SetExternalEvents", GLib.Variant("(sa(asas))", (self.scene_id, [(preferring, allowing)])))
        if self.selection:
            activity = {"title": GLib.Variant("s", name), "target-content-identifier": GLib.Variant("s", self.selection),
                        "keywords": GLib.Variant("as", ["contact"])}
            self.app.call("SetCurrentActivity", GLib.Variant("(ssa{sv})", (self.scene_id, ACTIVITY_TYPE, activity)))
        else:
            self.app.call("ClearCurrentActivity", GLib.Variant("(s)", (self.scene_id,)))

    def present(self, platform_data):
        """To the front with the opener's token: the activation token, else the startup id."""
        token = platform_data.get("activation-token") or platform_data.get("desktop-startup-id")
        present_with_token(self.window, token)


def present_with_token(window, token):
    """Shows a Gtk.Window and brings it to the front with the opener's token (None: without).

    Wayland: GTK 4.8's set_startup_id does not reach the compositor for a mapped window (present()
    mints its own token, from an app that is not focused, which the compositor refuses); the
    display's startup notification id is what present() activates with, as GtkApplication does.
    X11: the startup id becomes the window's _NET_STARTUP_ID."""
    display = window.get_display()
    if token and GdkWayland and isinstance(display, GdkWayland.WaylandDisplay):
        display.set_startup_notification_id(token)
    elif token:
        window.set_startup_id(token)
    window.present()


class ContactsApp:
    def __init__(self):
        self.windows, self.next_scene, self.loop = {}, 1, GLib.MainLoop()
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION)
        self.bus.connect("closed", lambda *_: self.loop.quit())
        with open(os.path.join(CONTRACT, "io.waypost.Application1.xml")) as contract:
            interface = Gio.DBusNodeInfo.new_for_xml(contract.read()).interfaces[0]
        self.bus.register_object(OBJECT_PATH, interface, self.on_method_call)
        self.call_sync("RegisterApplication", GLib.Variant("(soa{sv})", (APP_ID, OBJECT_PATH, {})))
        self.call_sync("DeclareScenes", GLib.Variant("(a(sa{sv}))", ([("contacts", {"kind": GLib.Variant("s", "window-group")})],)))
        # Only the dispatcher we registered with may hand us events.
        self.dispatcher = self.bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                             "GetNameOwner", GLib.Variant("(s)", (DISPATCHER,)), None,
                                             Gio.DBusCallFlags.NONE, -1, None).unpack()[0]

    def call_sync(self, member, parameters):
        return self.bus.call_sync(DISPATCHER, DISPATCHER_PATH, DISPATCHER_IFACE, member, parameters, None,
                                  Gio.DBusCallFlags.NONE, -1, None)

    def call(self, member, parameters):
        """A change for the dispatcher; sent in order on the one connection, errors printed."""
        def done(bus, result):
            try:
                bus.call_finish(result)
            except GLib.Error as error:
                print(f"contacts_gtk: {member}: {error.message}", file=sys.stderr)
        self.bus.call(DISPATCHER, DISPATCHER_PATH, DISPATCHER_IFACE, member, parameters, None,
                      Gio.DBusCallFlags.NONE, -1, None, done)

    def new_window(self):
        scene_id = f"contacts-{os.getpid()}-{self.next_scene}"
        self.next_scene += 1
        # Known to the dispatcher before CreateScene's reply names it.
        self.call_sync("AddScene", GLib.Variant("(ss)", (scene_id, "contacts")))
        window = self.windows[scene_id] = ContactWindow(self, scene_id)
        window.select(None)
        return window

    def closed(self, window):
        del self.windows[window.scene_id]
        self.call_sync("RemoveScene", GLib.Variant("(s)", (window.scene_id,)))
        if not self.windows:
            self.loop.quit()

    def on_method_call(self, _bus, sender, _path, _interface, method, parameters, invocation):
        """io.waypost.Application1: acknowledge on receipt, then handle on the main loop."""
        if sender != self.dispatcher:
            invocation.return_dbus_error("org.freedesktop.DBus.Error.AccessDenied", f"{sender} is not the dispatcher")
            return
        args = parameters.unpack()
        if method == "CreateScene":
            declaration, event, platform = args
            if declaration != "contacts":
                invocation.return_dbus_error("io.waypost.Error.UnknownDeclaration", f"no scene {declaration}")
                return
            window = self.new_window()
            invocation.return_value(GLib.Variant("(s)", (window.scene_id,)))
            contact = self.contact_in_uri(event["uri"]) if "uri" in event else event.get("target-content-identifier")
        else:
            window = self.windows.get(args[0])
            if window is None:
                invocation.return_dbus_error("io.waypost.Error.UnknownScene", f"scene {args[0]} is not open")
                return
            if method == "OpenURL":
                contact, platform = self.contact_in_uri(args[1]), args[2]
            elif method == "ContinueUserActivity" and args[1] == ACTIVITY_TYPE:
                contact, platform = args[2].get("target-content-identifier"), args[3]
            else:
                invocation.return_dbus_error("io.waypost.Error.NoHandler", f"{method} of {args[1]} is not handled")
                return
            invocation.return_value(None)
        GLib.idle_add(self.show, window, contact, platform)

    @staticmethod
    def contact_in_uri(uri):
        return (parse_qs(urlsplit(uri).query).get("id") or [""])[0].upper()

    def show(self, window, contact, platform):
        if contact in CONTACTS:
            window.select(contact)
        window.present(platform)
        return GLib.SOURCE_REMOVE


if __name__ == "__main__":
    if not Gtk.init_check():
        sys.exit("contacts_gtk: cannot open a display")
    ContactsApp().loop.run()
