#!/usr/bin/env python3
"""A participating app that speaks D-Bus over a plain socket, so that the socket survives `fork` and
`exec` (GDBus's and dbus-python's worker threads would not): messages are made and read with
Gio.DBusMessage's to_blob/new_from_blob, the connection authenticates with SASL EXTERNAL itself.

Usage: raw_bus_app.py MODE APP_ID SCENE
  plain   registers APP_ID, declares "main", opens SCENE taking any link; prints "ready", then serves
          io.waypost.test.Raw at /app: Fork() forks; the parent exits without answering, and the
          child, holding the connection alone, answers with its pid once the parent has exited.
          Try(member) makes that Dispatcher1 call (AddScene, RegisterApplication, SetShortcutItems: one
          item) and answers with
          "ERROR-NAME MESSAGE" ("ok" when it succeeded). Received() answers with the links received.
  exec    as plain; on SIGUSR1 it execs python3 RAW_BUS_EXEC (an env variable naming a script)
          with `continue FD SERIAL APP_ID`, keeping the socket open across the exec.
  continue FD SERIAL APP_ID   (after an exec) prints "execed", tries AddScene twice, printing each
          result as "AddScene ERROR-NAME MESSAGE".
Each link received is printed as "received URI" (and acknowledged).
"""
import os
import select
import signal
import socket
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

DISPATCHER = "io.waypost.Dispatcher"
PATH = "/io/waypost/Dispatcher"
IFACE = "io.waypost.Dispatcher1"
NONE = Gio.DBusCapabilityFlags.NONE


def say(line):
    print(line, flush=True)


class RawBus:
    def __init__(self, sock, serial=0):
        self.sock = sock
        self.serial = serial
        self.received = []
        self.controls = {}

    @staticmethod
    def connect():
        address = os.environ["DBUS_SESSION_BUS_ADDRESS"].split(";")[0]
        keys = dict(part.split("=", 1) for part in address.split(":", 1)[1].split(","))
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(keys["path"] if "path" in keys else "\0" + keys["abstract"])
        sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        answer = b""
        while not answer.endswith(b"\r\n"):
            answer += sock.recv(1)
        if not answer.startswith(b"OK"):
            sys.exit("authentication refused: %r" % answer)
        sock.sendall(b"BEGIN\r\n")
        bus = RawBus(sock)
        bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        return bus

    def send(self, message):
        self.serial += 1
        message.set_serial(self.serial)
        self.sock.sendall(message.to_blob(NONE))
        return self.serial

    def read(self):
        def exactly(count):
            data = b""
            while len(data) < count:
                chunk = self.sock.recv(count - len(data))
                if not chunk:
                    sys.exit("the bus closed the connection")
                data += chunk
            return data
        head = exactly(16)
        return Gio.DBusMessage.new_from_blob(head + exactly(Gio.DBusMessage.bytes_needed(head) - 16), NONE)

    def call(self, destination, path, interface, member, body=None):
        """The reply to a method call: (None, body) or (error name, message); serves calls meanwhile."""
        message = Gio.DBusMessage.new_method_call(destination, path, interface, member)
        if body is not None:
            message.set_body(body)
        serial = self.send(message)
        while True:
            incoming = self.read()
            kind = incoming.get_message_type()
            if kind in (Gio.DBusMessageType.METHOD_RETURN, Gio.DBusMessageType.ERROR) and incoming.get_reply_serial() == serial:
                if kind == Gio.DBusMessageType.ERROR:
                    return incoming.get_error_name(), incoming.get_body().unpack()[0]
                return None, incoming.get_body()
            self.serve(incoming)

    def serve(self, incoming):
        if incoming.get_message_type() != Gio.DBusMessageType.METHOD_CALL:
            return
        member = incoming.get_member()
        if member == "OpenURL":
            uri = incoming.get_body().unpack()[1]
            self.received.append(uri)
            say("received %s" % uri)
            return self.send(Gio.DBusMessage.new_method_reply(incoming))
        if incoming.get_interface() == "io.waypost.test.Raw" and member in self.controls:
            answer = self.controls[member](incoming)
            if answer is not None:
                reply = Gio.DBusMessage.new_method_reply(incoming)
                reply.set_body(answer)
                self.send(reply)
            return
        self.send(Gio.DBusMessage.new_method_error_literal(
            incoming, "org.freedesktop.DBus.Error.UnknownMethod", "not here: %s" % member))

    def dispatcher(self, member, body=None):
        return self.call(DISPATCHER, PATH, IFACE, member, body)


def register(bus, app_id, scene):
    for member, body in [
        ("RegisterApplication", GLib.Variant("(soa{sv})", (app_id, "/app", {}))),
        ("DeclareScenes", GLib.Variant("(a(sa{sv}))", ([("main", {"kind": GLib.Variant("s", "window-group")})],))),
        ("AddScene", GLib.Variant("(ss)", (scene, "main"))),
        ("SetExternalEvents", GLib.Variant("(sa(asas))", (scene, [([], ["*"])]))),
    ]:
        error = bus.dispatcher(member, body)[0]
        if error:
            sys.exit("%s: %s" % (member, error))


def attempt(bus, member, body):
    error, detail = bus.dispatcher(member, body)
    return "%s %s" % (error, detail) if error else "ok"


def main():
    mode = sys.argv[1]
    if mode == "continue":
        fd, serial, app_id = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        bus = RawBus(socket.socket(fileno=fd), serial)
        say("execed")
        say("AddScene " + attempt(bus, "AddScene", GLib.Variant("(ss)", ("after-exec", "main"))))
        say("AddScene " + attempt(bus, "AddScene", GLib.Variant("(ss)", ("after-exec-2", "main"))))
        while True:
            bus.serve(bus.read())
    app_id, scene = sys.argv[2], sys.argv[3]
    bus = RawBus.connect()
    register(bus, app_id, scene)

    def fork(incoming):
        parent = os.pidfd_open(os.getpid())  # before the fork: the parent may be reaped before the child runs
        if os.fork() != 0:
            os._exit(0)
        exited = select.poll()
        exited.register(parent, select.POLLIN)
        exited.poll()  # until the parent has exited: the connection is the child's alone now
        return GLib.Variant("(u)", (os.getpid(),))

    bodies = {
        "AddScene": GLib.Variant("(ss)", ("after-fork", "main")),
        "RegisterApplication": GLib.Variant("(soa{sv})", (app_id, "/app", {})),
        "SetShortcutItems": GLib.Variant("(aa{sv})", ([{"type": GLib.Variant("s", "org.example.raw.compose"),
                                                         "title": GLib.Variant("s", "Compose")}],)),
    }
    bus.controls = {
        "Fork": fork,
        "Try": lambda incoming: GLib.Variant("(s)", (attempt(bus, incoming.get_body().unpack()[0],
                                                             bodies[incoming.get_body().unpack()[0]]),)),
        "Received": lambda incoming: GLib.Variant("(as)", (bus.received,)),
    }
    # SIGUSR1 only wakes the loop below, which acts on it between messages.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGUSR1, lambda *_: None)
    say("ready")
    while True:
        readable, _, _ = select.select([bus.sock, wake_read], [], [])
        if bus.sock in readable:
            bus.serve(bus.read())
        if wake_read in readable:
            os.read(wake_read, 64)
            if mode == "exec":
                os.set_inheritable(bus.sock.fileno(), True)
                program = os.environ["RAW_BUS_EXEC"]
                os.execv(sys.executable, [sys.executable, program, "continue", str(bus.sock.fileno()), str(bus.serial), app_id])


if __name__ == "__main__":
    main()
