#!/usr/bin/python3
# A D-Bus service written with GDBus (python3-gi), a peer the Swift layer did not write.
# Owns the name given as argv[1] on the bus in DBUS_SESSION_BUS_ADDRESS and serves
# org.waypost.Py at /org/waypost/Py; prints "ready" once the name is owned.
import sys
from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.waypost.Py">
    <method name="Add"><arg type="i" direction="in"/><arg type="i" direction="in"/><arg type="i" direction="out"/></method>
    <method name="Describe"><arg type="a{sv}" direction="in"/><arg type="as" direction="out"/></method>
    <method name="Pair"><arg type="(sa{sv})" direction="out"/></method>
    <method name="Fail"/>
  </interface>
</node>
"""

def on_call(connection, sender, path, interface, method, params, invocation):
    if method == "Add":
        a, b = params.unpack()
        invocation.return_value(GLib.Variant("(i)", (a + b,)))
    elif method == "Describe":
        (options,) = params.unpack()
        described = sorted("%s=%r" % (key, value) for key, value in options.items())
        invocation.return_value(GLib.Variant("(as)", (described,)))
    elif method == "Pair":
        invocation.return_value(GLib.Variant("((sa{sv}))", (("scene", {"index": GLib.Variant("u", 2)}),)))
    elif method == "Fail":
        invocation.return_dbus_error("org.waypost.Py.Error.Nope", "python says no")

def on_bus(connection, name):
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    connection.register_object("/org/waypost/Py", node.interfaces[0], on_call, None, None)

def on_name(connection, name):
    print("ready", flush=True)

loop = GLib.MainLoop()
Gio.bus_own_name(Gio.BusType.SESSION, sys.argv[1], Gio.BusNameOwnerFlags.NONE, on_bus, on_name,
                 lambda *_: loop.quit())
loop.run()
