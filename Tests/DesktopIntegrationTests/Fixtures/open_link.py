"""Opens a link through the dispatcher's Open, as an app would: python3 open_link.py URI [--exit|--explain].

With --exit it sends Open without waiting for a reply (NO_REPLY_EXPECTED) and exits at once: a
caller gone before the dispatcher could look at it. With --explain it asks Explain instead, as the
browser extension's host does, and prints the app the plan's first step names. Otherwise it waits
for the outcome.
"""
import sys

import dbus
import dbus.lowlevel

uri = sys.argv[1]
bus = dbus.SessionBus()
if "--explain" in sys.argv[2:]:
    dispatcher = dbus.Interface(bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1")
    print(dispatcher.Explain(uri)["app-id"])
    sys.exit(0)
call = dbus.lowlevel.MethodCallMessage("io.waypost.Dispatcher", "/io/waypost/Dispatcher", "io.waypost.Dispatcher1", "Open")
call.append(uri, dbus.Dictionary({}, signature="sv"), signature="sa{sv}")
if "--exit" in sys.argv[2:]:
    call.set_no_reply(True)
    bus.send_message(call)
    bus.flush()
    sys.exit(0)
bus.send_message_with_reply_and_block(call, 10000)
