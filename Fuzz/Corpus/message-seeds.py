#!/usr/bin/python3
"""Writes real D-Bus messages, marshalled by GDBus, as seeds for fuzz-message-reader.

Hand-written seeds seldom pass libdbus's validation, so the fuzzer rarely reached the reader
with them; these are what the dispatcher reads from peers (calls of its contract with nested
a{sv}, replies, errors, signals), in both byte orders.

    /usr/bin/python3 Fuzz/Corpus/message-seeds.py Fuzz/Corpus/message-reader
"""
import os
import sys

from gi.repository import Gio, GLib

PATH = "/io/waypost/Dispatcher"
INTERFACE = "io.waypost.Dispatcher1"
NAME = "io.waypost.Dispatcher"

# Every D-Bus type, nested, as an activity's user info carries them.
USER_INFO = {
    "byte": GLib.Variant("y", 7), "flag": GLib.Variant("b", True), "int16": GLib.Variant("n", -3),
    "uint16": GLib.Variant("q", 3), "int32": GLib.Variant("i", -70000), "uint32": GLib.Variant("u", 70000),
    "int64": GLib.Variant("x", -2**40), "uint64": GLib.Variant("t", 2**40), "double": GLib.Variant("d", 0.25),
    "text": GLib.Variant("s", "Vanilla, large"), "path": GLib.Variant("o", "/org/example/Item"),
    "signature": GLib.Variant("g", "a{sv}"), "list": GLib.Variant("as", ["a", "b"]),
    "pairs": GLib.Variant("a(si)", [("one", 1), ("two", 2)]),
    "nested": GLib.Variant("a{sv}", {"inner": GLib.Variant("a{sv}", {"deep": GLib.Variant("av", [GLib.Variant("s", "x")])})}),
    "bytes": GLib.Variant("ay", b"\x00\x01\xff"),
}
ACTIVITY = {
    "title": GLib.Variant("s", "Vanilla, large"), "target-content-identifier": GLib.Variant("s", "size/large"),
    "webpage-url": GLib.Variant("s", "https://icecream.example/size/large?x=1#top"),
    "user-info": GLib.Variant("a{sv}", USER_INFO), "keywords": GLib.Variant("as", ["ice", "cream"]),
    "eligible-for-search": GLib.Variant("b", True), "eligible-for-handoff": GLib.Variant("b", False),
    "expiration-date": GLib.Variant("x", 1_900_000_000), "persistent-identifier": GLib.Variant("s", "large"),
    "required-user-info-keys": GLib.Variant("as", ["text"]),
}
PLATFORM = {"activation-token": GLib.Variant("s", "token-1"), "app-id": GLib.Variant("s", "org.example.Chat")}
DECLARATION = ("main", "window-group", ["icecream://*"], {"matching": GLib.Variant("as", ["*"])})

CALLS = {
    "open": ("Open", "(sa{sv})", ("icecream://size/large?flavour=vanilla", PLATFORM)),
    "continue-activity": ("ContinueActivity", "(sa{sv}a{sv})", ("org.example.show", ACTIVITY, PLATFORM)),
    "register": ("RegisterApplication", "(soa{sv})", ("org.example.IceCream", "/org/example/IceCream", {})),
    "set-current-activity": ("SetCurrentActivity", "(ssa{sv})", ("window-1", "org.example.show", ACTIVITY)),
    "set-external-events": ("SetExternalEvents", "(sasas)", ("window-1", ["icecream://size/*"], ["*"])),
    "delete-saved": ("DeleteSavedActivities", "(as)", (["large", "small"],)),
    "search": ("SearchActivities", "(asu)", (["van", "large"], 20)),
    "declarations": ("DeclareScenes", "(a(ssasa{sv}))", ([DECLARATION],)),
}


def blob(message, order):
    message.set_byte_order(order)
    return message.to_blob(Gio.DBusCapabilityFlags.NONE)


def main(directory):
    os.makedirs(directory, exist_ok=True)
    messages = {}
    for name, (member, signature, body) in CALLS.items():
        call = Gio.DBusMessage.new_method_call(NAME, PATH, INTERFACE, member)
        call.set_body(GLib.Variant(signature, body))
        call.set_serial(7)
        call.set_sender(":1.42")
        messages["call-" + name] = call
    answered = Gio.DBusMessage.new_method_call(NAME, PATH, INTERFACE, "Open")
    answered.set_serial(7)
    reply = answered.new_method_reply()
    reply.set_body(GLib.Variant("(a{sv})", ({"app-id": GLib.Variant("s", "org.example.IceCream"), "scene-id": GLib.Variant("s", "window-1")},)))
    messages["reply-outcome"] = reply
    error = answered.new_method_error_literal(
        "io.waypost.Error.Busy", "the caller has 32 calls in flight")
    messages["error-busy"] = error
    signal = Gio.DBusMessage.new_signal(PATH, INTERFACE, "CurrentActivityChanged")
    signal.set_body(GLib.Variant("(a{sv})", (ACTIVITY,)))
    messages["signal-current-activity"] = signal
    for name, message in messages.items():
        if not message.get_serial():
            message.set_serial(8)
        for suffix, order in (("le", Gio.DBusMessageByteOrder.LITTLE_ENDIAN), ("be", Gio.DBusMessageByteOrder.BIG_ENDIAN)):
            with open(os.path.join(directory, "%s-%s.bin" % (name, suffix)), "wb") as out:
                out.write(blob(message, order))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "message-reader"))
