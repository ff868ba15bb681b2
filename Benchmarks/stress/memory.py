#!/usr/bin/python3
"""Does the daemon's memory come back after a flood?

A private session with one participating app. The daemon's RSS (VmRSS) is printed at rest, right
after a burst of OPENS `Open`s (16 opener connections, 32 calls in flight each: the most the daemon
admits per connection), once idle again, then after one app added and removed SCENES scenes (each
with a preferring set), and once idle again. The goal: back within 2x the resting RSS once idle.
"Idle" waits IDLE seconds (the daemon trims the heap a few seconds after its last call).

    /usr/bin/python3 Benchmarks/stress/memory.py [OPENS] [SCENES] [IDLE]    # 10000 100000 12
"""
import sys
import time

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

from stress_session import Session, rss_kib, waypost_binary


def burst(session, total, connections=16, in_flight=32):
    """`total` Opens, as fast as the daemon answers; returns (succeeded, busy, other errors)."""
    loop = GLib.MainLoop()
    mainloop = DBusGMainLoop()
    counts = {"sent": 0, "done": 0, "ok": 0, "busy": 0, "failed": 0}
    proxies = []
    for _ in range(connections):
        bus = dbus.bus.BusConnection(session.env["DBUS_SESSION_BUS_ADDRESS"], mainloop=mainloop)
        proxies.append(dbus.Interface(bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1"))

    def send(proxy):
        if counts["sent"] >= total:
            return
        counts["sent"] += 1
        uri = "quiet://burst/%d" % counts["sent"]
        proxy.Open(uri, dbus.Dictionary({}, signature="sv"), timeout=120,
                   reply_handler=lambda _: finished(proxy, "ok"), error_handler=lambda e: failed(proxy, e))

    def failed(proxy, error):
        finished(proxy, "busy" if error.get_dbus_name() == "io.waypost.Error.Busy" else "failed")

    def finished(proxy, how):
        counts["done"] += 1
        counts[how] += 1
        if counts["done"] == total:
            loop.quit()
        else:
            send(proxy)

    for proxy in proxies:
        for _ in range(in_flight):
            send(proxy)
    loop.run()
    return counts["ok"], counts["busy"], counts["failed"]


def main():
    opens = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    scenes = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    idle = float(sys.argv[3]) if len(sys.argv) > 3 else 12
    session = Session({"org.example.Quiet": "quiet", "org.example.Mass": "mass"})
    try:
        pid = session.daemon.pid
        session.start_app("org.example.Quiet", "plain")
        for index in range(100):
            session.open("quiet://warm/%d" % index)
        time.sleep(idle)
        baseline = rss_kib(pid)
        print("waypost: %s" % waypost_binary())
        print("at rest:                        %7d KiB" % baseline)
        started = time.monotonic()
        ok, busy, failed = burst(session, opens)
        print("after %d Opens (%.1f s; %d delivered, %d Busy, %d other errors): %7d KiB"
              % (opens, time.monotonic() - started, ok, busy, failed, rss_kib(pid)))
        time.sleep(idle)
        after_burst = rss_kib(pid)
        print("idle again:                     %7d KiB  (%.2fx at rest)" % (after_burst, after_burst / baseline))
        started = time.monotonic()
        mass = session.start_app("org.example.Mass", "mass", scenes)
        if mass.stdout.readline().strip() != "done":
            sys.exit("the mass app failed")
        print("after %d scenes added and removed (%.1f s): %7d KiB" % (scenes, time.monotonic() - started, rss_kib(pid)))
        time.sleep(idle)
        after_scenes = rss_kib(pid)
        print("idle again:                     %7d KiB  (%.2fx at rest; goal < 2x)" % (after_scenes, after_scenes / baseline))
    finally:
        session.close()


if __name__ == "__main__":
    main()
