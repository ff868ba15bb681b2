#!/usr/bin/python3
"""A participating app for the stress scripts (io.waypost.Application1 from the XML contract).

Usage: stress_app.py APP_ID MODE [ARGS]
  plain                       one scene "s" allowing anything; acknowledges every OpenURL at once
  churn SCENES CONDITIONS     SCENES scenes; then replaces their sets, CONDITIONS conditions of 64
                              bytes each, round and round, as fast as the dispatcher answers (4 calls
                              in flight; a Busy one is sent again at once), until SIGTERM; then
                              prints to stderr the changes made per second and how many were Busy
  mass COUNT                  adds COUNT scenes (each with a short preferring set), removes them all,
                              prints "done", then idles
  hoard COUNT BYTES TYPE      one scene; saves COUNT search-eligible activities of TYPE (each its own
                              persistent identifier, BYTES of user info) and one shortcut item, so
                              that its dock menu and its saved activities are as large as its budgets
                              allow; prints "ready" once saved
Prints "ready" once registered with its scenes open.
"""
import os
import random
import signal
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

APP_IFACE = "io.waypost.Application1"


class App(dbus.service.Object):
    def __init__(self, bus, path):
        super().__init__(bus, path)
        self.received = 0

    @dbus.service.method(APP_IFACE, in_signature="ssa{sv}", out_signature="")
    def OpenURL(self, scene_id, uri, platform_data):
        self.received += 1

    @dbus.service.method(APP_IFACE, in_signature="sa{sv}a{sv}", out_signature="s")
    def CreateScene(self, declaration_id, event, platform_data):
        return "none"


def modifiers(preferring, allowing):
    return dbus.Array([dbus.Struct((dbus.Array(preferring, signature="s"), dbus.Array(allowing, signature="s")))],
                      signature="(asas)")


def pipelined(calls, in_flight, done):
    """Runs the zero-argument async call starters in `calls` with at most `in_flight` outstanding."""
    state = {"next": 0, "outstanding": 0}

    def pump():
        while state["outstanding"] < in_flight and state["next"] < len(calls):
            start = calls[state["next"]]
            state["next"] += 1
            state["outstanding"] += 1
            start(finished, failed)
        if state["outstanding"] == 0 and state["next"] == len(calls):
            done()

    def finished(*_):
        state["outstanding"] -= 1
        pump()

    def failed(error):
        sys.stderr.write("call failed: %s\n" % error)
        finished()

    pump()


def main():
    app_id, mode = sys.argv[1], sys.argv[2]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    App(bus, "/app")
    dispatcher = dbus.Interface(bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1")
    dispatcher.RegisterApplication(app_id, dbus.ObjectPath("/app"), dbus.Dictionary({}, signature="sv"))
    decl = dbus.Struct(("main", dbus.Dictionary({"kind": dbus.String("window-group")}, signature="sv")))
    dispatcher.DeclareScenes(dbus.Array([decl], signature="(sa{sv})"))
    loop = GLib.MainLoop()

    if mode == "plain":
        dispatcher.AddScene("s", "main")
        dispatcher.SetExternalEvents("s", modifiers([], ["*"]))
        print("ready", flush=True)
    elif mode == "churn":
        scenes, conditions = int(sys.argv[3]), int(sys.argv[4])
        for index in range(scenes):
            dispatcher.AddScene("c%d" % index, "main")
        print("ready", flush=True)
        counter = {"changes": 0, "busy": 0, "started": time.monotonic()}
        rng = random.Random(1)

        def one(finished, failed):
            scene = "c%d" % rng.randrange(scenes)
            words = ["%016x" % rng.getrandbits(64) * 4 for _ in range(conditions)]
            dispatcher.SetExternalEvents(scene, modifiers(words, []), reply_handler=lambda: again(finished),
                                         error_handler=lambda error: refused(error))

        def again(finished):
            counter["changes"] += 1
            finished()
            one_more()

        def refused(error):
            # Busy (over the daemon's change rate): try again at once, as a churner would.
            if error.get_dbus_name() != "io.waypost.Error.Busy":
                sys.stderr.write("%s\n" % error)
            counter["busy"] += 1
            one_more()

        def one_more():
            one(lambda: None, lambda e: sys.stderr.write("%s\n" % e))

        def report(*_):
            seconds = time.monotonic() - counter["started"]
            sys.stderr.write("churn: %d changes in %.1f s (%.0f/s), %d refused Busy\n"
                             % (counter["changes"], seconds, counter["changes"] / seconds, counter["busy"]))
            os._exit(0)

        signal.signal(signal.SIGTERM, report)
        for _ in range(4):
            one_more()
    elif mode == "hoard":
        count, size, kind = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        dispatcher.AddScene("s", "main")
        dispatcher.SetShortcutItems(dbus.Array([dbus.Dictionary(
            {"type": dbus.String(kind), "title": dbus.String("Hoard")}, signature="sv")], signature="a{sv}"))

        def save(index):
            activity = dbus.Dictionary({
                "title": dbus.String("hoarded note %d" % index),
                "keywords": dbus.Array(["hoard", "note%d" % index], signature="s"),
                "user-info": dbus.Dictionary({"blob": dbus.String("x" * size)}, signature="sv"),
                "eligible-for-search": dbus.Boolean(True),
                "persistent-identifier": dbus.String("hoard-%d" % index),
            }, signature="sv")
            return lambda ok, failed: dispatcher.SetCurrentActivity("s", kind, activity, reply_handler=ok, error_handler=failed)

        pipelined([save(i) for i in range(count)], 16, lambda: print("ready", flush=True))
    elif mode == "mass":
        count = int(sys.argv[3])
        print("ready", flush=True)

        def add(index):
            return lambda ok, failed: dispatcher.AddScene(
                "m%d" % index, "main", reply_handler=lambda: dispatcher.SetExternalEvents(
                    "m%d" % index, modifiers(["item-%d" % index], []), reply_handler=ok, error_handler=failed),
                error_handler=failed)

        def remove(index):
            return lambda ok, failed: dispatcher.RemoveScene("m%d" % index, reply_handler=ok, error_handler=failed)

        def removed():
            print("done", flush=True)

        pipelined([add(i) for i in range(count)], 16,
                  lambda: pipelined([remove(i) for i in range(count)], 16, removed))
    loop.run()


if __name__ == "__main__":
    main()
