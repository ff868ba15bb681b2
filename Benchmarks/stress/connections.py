#!/usr/bin/python3
"""What the dispatcher spends on a connection to the session bus that sends it nothing.

The daemon walks from each new connection's process as it appears (docs/opener.md), so every
program that connects to the session bus costs it something, link or not. COUNT connections are
opened and closed one after another by fresh processes (as `gio open` and every GLib program do),
and the daemon's CPU is read from /proc before and after, beside the bus's own for the same
connections (the yardstick: what every connection costs the session already).

    /usr/bin/python3 Benchmarks/stress/connections.py [COUNT]      # 1000
"""
import os
import subprocess
import sys

from stress_session import PYTHON, Session, cpu_seconds

CONNECT = "import dbus, os; dbus.bus.BusConnection(os.environ['DBUS_SESSION_BUS_ADDRESS']).close()"


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    session = Session({})
    try:
        for _ in range(20):  # warm-up: the processes above these children are read once
            subprocess.run([PYTHON, "-c", CONNECT], env=session.env, check=True)
        # /proc/PID/stat counts whole processes, ended threads included, in 10 ms ticks: COUNT is
        # large enough for the totals to span many.
        daemon_before, bus_before = cpu_seconds(session.daemon.pid), cpu_seconds(session.bus_pid)
        for _ in range(count):
            subprocess.run([PYTHON, "-c", CONNECT], env=session.env, check=True)
        daemon = (cpu_seconds(session.daemon.pid) - daemon_before) * 1e6 / count
        bus = (cpu_seconds(session.bus_pid) - bus_before) * 1e6 / count
        print("%d connections from fresh processes, each sending nothing:" % count)
        print("  daemon CPU per connection %.1f µs; the bus's own %.1f µs; ratio %.2f" % (daemon, bus, daemon / bus))
    finally:
        session.close()


if __name__ == "__main__":
    main()
