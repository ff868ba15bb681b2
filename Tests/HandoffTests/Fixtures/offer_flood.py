#!/usr/bin/python3
"""An offer flood: waypost-handoff: URLs opened at the dispatcher (its Open, as any process may) as fast
as it answers, from CALLERS processes at once (each a caller of its own), each keeping BATCH calls in
flight, until SIGTERM (or, with --once, one batch each; with --batches N, N each).

Usage: offer_flood.py CALLERS BATCH PREFIX [--once | --batches N]
Each URL carries a canonical payload titled "PREFIX CALLER-N". Prints "flooding" once every caller
had its first batch answered, then "batch" for each later batch answered; at the end "done" and a
JSON line {"offered": n, "refused": {error name: n}} summed over the callers.
"""
import base64
import json
import os
import select
import signal
import sys

import dbus
import dbus.bus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib


def handoff_url(title):
    # The payload's one canonical form: sorted keys, no spaces (what Waypost's encoder writes).
    payload = {"device": "flood", "info": {}, "sent": 0, "title": title, "type": "com.example.flood"}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return "waypost-handoff:v1/" + base64.urlsafe_b64encode(text).rstrip(b"=").decode()


def caller(out, index, batch, prefix, batches):
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    dispatcher = bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher", introspect=False)
    loop = GLib.MainLoop()
    counts = {"offered": 0, "refused": {}}
    state = {"sent": 0, "pending": 0, "batches": 0}

    def finish():
        out.write(json.dumps(counts) + "\n")
        out.flush()
        loop.quit()

    def answered():
        state["pending"] -= 1
        if state["pending"]:
            return
        out.write("batch\n")
        out.flush()
        state["batches"] += 1
        finish() if batches is not None and state["batches"] >= batches else send()

    def offered(*_):
        counts["offered"] += 1
        answered()

    def refused(error):
        name = error.get_dbus_name()
        counts["refused"][name] = counts["refused"].get(name, 0) + 1
        answered()

    def send():
        for _ in range(batch):
            state["sent"] += 1
            state["pending"] += 1
            dispatcher.Open(handoff_url("%s %d-%d" % (prefix, index, state["sent"])), dbus.Dictionary({}, signature="sv"),
                            dbus_interface="io.waypost.Dispatcher1", reply_handler=offered, error_handler=refused, timeout=120)

    def stop():
        nonlocal batches
        batches = 0
        return False

    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, stop)
    send()
    loop.run()


def main():
    callers, batch, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    options = sys.argv[4:]
    batches = 1 if "--once" in options else int(options[options.index("--batches") + 1]) if "--batches" in options else None
    children = {}
    for index in range(callers):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            caller(os.fdopen(write, "w"), index, batch, prefix, batches)
            os._exit(0)
        os.close(write)
        children[read] = pid

    # SIGTERM wakes the loop through a pipe of its own (a self-pipe), whatever it is doing.
    wake_read, wake_write = os.pipe()
    signal.signal(signal.SIGTERM, lambda *_: os.write(wake_write, b"x"))
    started, total, buffers, open_pipes = set(), {"offered": 0, "refused": {}}, {}, set(children)
    stopping = False
    while open_pipes:
        ready, _, _ = select.select(list(open_pipes) + [wake_read], [], [])
        if wake_read in ready:
            os.read(wake_read, 64)
            if not stopping:
                stopping = True
                for pid in children.values():
                    os.kill(pid, signal.SIGTERM)
            ready.remove(wake_read)
        for fd in ready:
            data = os.read(fd, 65536)
            if not data:
                open_pipes.discard(fd)
                continue
            buffers[fd] = buffers.get(fd, b"") + data
            while b"\n" in buffers[fd]:
                line, buffers[fd] = buffers[fd].split(b"\n", 1)
                if line == b"batch":
                    if fd not in started:
                        started.add(fd)
                        if len(started) == len(children):
                            print("flooding", flush=True)
                    elif len(started) == len(children) and not stopping:
                        print("batch", flush=True)
                else:
                    counts = json.loads(line)
                    total["offered"] += counts["offered"]
                    for name, count in counts["refused"].items():
                        total["refused"][name] = total["refused"].get(name, 0) + count
    for pid in children.values():
        os.waitpid(pid, 0)
    print("done", flush=True)
    print(json.dumps(total), flush=True)


if __name__ == "__main__":
    main()
