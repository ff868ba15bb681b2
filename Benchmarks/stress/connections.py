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


def cpu_microseconds(pid):
    """CPU time of a process, ended threads included, in µs (/proc/PID/stat: 10 ms ticks, so COUNT
    is large enough for the total to span many)."""
    return cpu_seconds(pid) * 1e6


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    session = Session({})
    try:
        for _ in range(20):  # warm-up: the processes above these children are read once
            subprocess.run([PYTHON, "-c", CONNECT], env=session.env, check=True)
        daemon_before, bus_before = cpu_microseconds(session.daemon.pid), cpu_microseconds(session.bus_pid)
        for _ in range(count):
            subprocess.run([PYTHON, "-c", CONNECT], env=session.env, check=True)
        daemon = (cpu_microseconds(session.daemon.pid) - daemon_before) / count
        bus = (cpu_microseconds(session.bus_pid) - bus_before) / count
        print("%d connections from fresh processes, each sending nothing:" % count)
        print("  daemon CPU per connection %.1f µs; the bus's own %.1f µs; ratio %.2f" % (daemon, bus, daemon / bus))
    finally:
        session.close()


if __name__ == "__main__":
    main()
