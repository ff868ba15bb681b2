#!/usr/bin/python3
"""Another app's Open while a stranger on the bus attacks what any process may call: each attack of
the third hostile round, against idle, interleaved in rounds on one private session.

    /usr/bin/python3 Benchmarks/stress/hostile.py [OPENS] [ROUNDS] [ACTIVITIES] [USER_INFO_BYTES]

OPENS timed Opens of the victim app per phase (default 100), ROUNDS idle/attack rounds per attack
(3), the hoarding app's saved activities (2,000) and the user info of each (15,000 bytes: its
budget is 16 KiB). The attacks, each one attacker process with its connections:
  getlayout   32 connections, each always reading the hoarder's dock menu (GetLayout)
  list        8 connections listing every app's saved activities (ListSavedActivities "")
  search      8 connections searching 32 terms of 1 KiB each (SearchActivities, limit 1,000)
  offers      8 connections opening Handoff offers (Open of waypost-handoff: URLs), 4 in flight each
  eventgroup  4 connections clicking the hoarder's menu item 100,000 times per EventGroup
and the yardstick, a flood the daemon does no work for:
  ping        8 connections pinging the daemon (org.freedesktop.DBus.Peer), 4 in flight each
For each: the victim's Open median and p10-p90 idle and under attack, the ratio of the medians
(target 1.5 at most) and of the p90s, the attacked median against the ping flood's (what any flood
costs the bus and the two cores, whatever the daemon does), and the daemon's RSS after. Needs the release build (or $WAYPOST)."""
import base64
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

from stress_session import PYTHON, Session, rss_kib

HERE = os.path.dirname(os.path.abspath(__file__))
DISPATCHER, PATH, IFACE = "io.waypost.Dispatcher", "/io/waypost/Dispatcher", "io.waypost.Dispatcher1"
HOARD_TYPE = "org.example.hoard.note"
MENU = "/io/waypost/Dispatcher/quicklist/org/example/Hoarder"


def offer(index):
    payload = json.dumps({"device": "flood", "info": {}, "sent": 0, "title": "offer %d" % index, "type": "com.example.flood"},
                         separators=(",", ":")).encode()
    return "waypost-handoff:v1/" + base64.urlsafe_b64encode(payload).decode().rstrip("=")


def attack(kind):
    """An attacker process: its connections keep their calls in flight until SIGTERM."""
    DBusGMainLoop(set_as_default=True)
    count, in_flight = {"getlayout": (32, 1), "list": (8, 1), "search": (8, 1), "offers": (8, 4), "eventgroup": (4, 1), "ping": (8, 4)}[kind]
    terms = ["%c" % (97 + i % 26) * 1024 for i in range(32)]
    clicks = dbus.Array([dbus.Struct((dbus.Int32(1), "clicked", dbus.String("", variant_level=1), dbus.UInt32(0)))] * 100_000,
                        signature="(isvu)")
    sent = {"n": 0}

    def keep(connection):
        """One call on `connection`, and another as soon as it is answered (or refused)."""
        def again(*_):
            GLib.idle_add(lambda: keep(connection) and False)
        sent["n"] += 1
        handlers = {"reply_handler": again, "error_handler": again, "timeout": 120}
        if kind in ("getlayout", "eventgroup"):
            menu = dbus.Interface(connection.get_object(DISPATCHER, MENU, introspect=False), "com.canonical.dbusmenu")
            if kind == "getlayout":
                menu.GetLayout(0, -1, dbus.Array([], signature="s"), **handlers)
            else:
                menu.EventGroup(clicks, **handlers)
            return
        if kind == "ping":
            dbus.Interface(connection.get_object(DISPATCHER, PATH, introspect=False), "org.freedesktop.DBus.Peer").Ping(**handlers)
            return
        dispatcher = dbus.Interface(connection.get_object(DISPATCHER, PATH, introspect=False), IFACE)
        if kind == "list":
            dispatcher.ListSavedActivities("", **handlers)
        elif kind == "search":
            dispatcher.SearchActivities(terms, dbus.UInt32(1000), **handlers)
        elif kind == "offers":
            dispatcher.Open(offer(sent["n"]), dbus.Dictionary({}, signature="sv"), **handlers)

    for _ in range(count):
        connection = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
        for _ in range(in_flight):
            keep(connection)
    print("attacking", flush=True)
    GLib.MainLoop().run()


def timed_opens(session, count):
    times = []
    for index in range(count):
        started = time.monotonic()
        session.open("victim://round?%d" % index)
        times.append((time.monotonic() - started) * 1000)
    return times


def main():
    opens = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    activities = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    size = int(sys.argv[4]) if len(sys.argv) > 4 else 15000
    session = Session({"org.example.Victim": "victim", "org.example.Hoarder": "hoard"}, activity_types={"org.example.Hoarder": [HOARD_TYPE]})
    try:
        session.start_app("org.example.Victim", "plain")
        started = time.monotonic()
        session.start_app("org.example.Hoarder", "hoard", activities, size, HOARD_TYPE)
        print("the hoarder saved %d activities of %d bytes of user info in %.1f s; daemon RSS %d KiB"
              % (activities, size, time.monotonic() - started, rss_kib(session.daemon.pid)), flush=True)
        timed_opens(session, 20)  # warm-up
        print("another app's Open (ms), %d per phase, %d rounds of idle then attack:" % (opens, rounds))
        print("  attack       idle median (p10-p90)    attacked median (p10-p90)   ratio (p90's)   vs ping   daemon RSS after")
        ping = None
        for kind in ["ping", "getlayout", "list", "search", "offers", "eventgroup"]:
            idle, attacked = [], []
            for _ in range(rounds):
                idle += timed_opens(session, opens)
                attacker = session.spawn([PYTHON, os.path.abspath(__file__), "attack", kind], stderr=subprocess.DEVNULL)
                if attacker.stdout.readline().strip() != "attacking":
                    sys.exit("the %s attacker did not start" % kind)
                attacked += timed_opens(session, opens)
                attacker.send_signal(signal.SIGTERM)
                attacker.wait()

            def spread(values):
                deciles = statistics.quantiles(values, n=10)
                return "%6.2f (%5.2f-%6.2f)" % (statistics.median(values), deciles[0], deciles[-1])
            p90 = statistics.quantiles(attacked, n=10)[-1] / statistics.quantiles(idle, n=10)[-1]
            ping = ping or statistics.median(attacked)
            print("  %-11s  %s       %s       %5.2fx (%5.2fx)  %5.2fx   %d KiB" % (
                kind, spread(idle), spread(attacked), statistics.median(attacked) / statistics.median(idle), p90,
                statistics.median(attacked) / ping, rss_kib(session.daemon.pid)), flush=True)
        print("  target: each ratio of the medians 1.5 at most")
    finally:
        session.close()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "attack":
        attack(sys.argv[2])
    else:
        main()
