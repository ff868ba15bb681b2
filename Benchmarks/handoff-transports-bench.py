#!/usr/bin/python3
"""bench-handoff-transports: send → offer shown, through GSConnect and through kdeconnectd, interleaved.

Two pairs of devices at once, each as handoff-bench.py makes them (private bus, HOME, XDG, Xvfb,
`waypost install --user`, Tests/Apps/sample_app.py): K, two kdeconnectd (Tests/HandoffTests/Fixtures/
kdeconnect_pair.py), and G, GSConnect 54 under gjs on A and kdeconnectd on B (gsconnect_pair.py). Each
round times, in alternating order so that neither always runs in the other's wake:

- through kdeconnectd: K's A `Handoff1.Send` → K's B emits `OffersChanged`;
- through GSConnect:   G's A `Handoff1.Send` → G's B emits `OffersChanged` (received by kdeconnectd);
- to GSConnect:        G's B `Handoff1.Send` → G's A emits `OffersChanged` (GSConnect opens the URL).

Every offer is accepted (into the right scene, checked at the end) so that none piles up. Reports the
medians, their spread (quartiles) and the ratios to kdeconnectd's; no target. Needs root, kdeconnect,
gnome-shell-extension-gsconnect and gjs. WAYPOST names the waypost binary (the release build).
"""
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("handoff_bench", os.path.join(HERE, "handoff-bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

ROUNDS = int(os.environ.get("ROUNDS", "20"))


class Side:
    """One device's Handoff1 on its bus, with the OffersChanged it has seen."""

    def __init__(self, env):
        self.bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
        self.handoff = dbus.Interface(self.bus.get_object("io.waypost.Dispatcher", "/io/waypost/Handoff"), "io.waypost.Handoff1")
        self.changed = []
        self.bus.add_signal_receiver(lambda: self.changed.append(time.perf_counter()), "OffersChanged", "io.waypost.Handoff1",
                                     path="/io/waypost/Handoff")


def pair(work, label, fixture):
    a_env = bench.device(f"{work}/{label}a", "Alpha")
    b_env = bench.device(f"{work}/{label}b", "Beta")
    process = subprocess.Popen([bench.PYTHON, f"{bench.FIXTURES}/{fixture}", f"{work}/{label}a/kdeconnect.json",
                                f"{work}/{label}b/kdeconnect.json"], stdout=subprocess.PIPE, stderr=open(f"{work}/{label}-pairing.log", "ab"))
    paired = json.loads(process.stdout.readline())
    if "error" in paired:
        raise SystemExit(f"{fixture}: {paired['error']}")
    both = ["note-42", bench.EDIT, bench.ACTIVITY]
    scenes = [["list", [[[], ["*"]]]], ["note-42", [[["note/42"], []]]]]
    bench.install_app(f"{work}/{label}a", a_env, scenes, both)
    bench.install_app(f"{work}/{label}b", b_env, scenes, both)
    return process, paired, Side(a_env), Side(b_env)


def timed_send(sender, receiver, device, loop):
    """Send → the receiver's OffersChanged that shows the offer (an earlier accept's may come first);
    then the offer is accepted, and its OffersChanged drained."""
    receiver.changed.clear()
    start = time.perf_counter()
    sender.handoff.Send(device, "", False)
    deadline = GLib.timeout_add(10000, loop.quit)
    offers = []
    while not offers:
        while not receiver.changed:
            loop.run()
            if not receiver.changed:
                raise SystemExit("no offer within 10 s")
        offers = receiver.handoff.ListOffers()
        if not offers:
            receiver.changed.clear()
    shown = receiver.changed[-1] - start
    GLib.source_remove(deadline)
    receiver.handoff.Accept(str(offers[-1]["id"]), dbus.Dictionary({}, signature="sv"))
    while GLib.MainContext.default().iteration(False):
        pass
    return shown


def main():
    DBusGMainLoop(set_as_default=True)
    work = tempfile.mkdtemp(prefix="waypost-handoff-transports-")
    pairings = []
    try:
        k_pair, k, k_a, k_b = pair(work, "k", "kdeconnect_pair.py")
        pairings.append(k_pair)
        g_pair, g, g_a, g_b = pair(work, "g", "gsconnect_pair.py")
        pairings.append(g_pair)
        loop = GLib.MainLoop()
        for side in (k_a, k_b, g_a, g_b):
            side.bus.add_signal_receiver(lambda: loop.quit(), "OffersChanged", "io.waypost.Handoff1", path="/io/waypost/Handoff")
        series = {"kdeconnectd → kdeconnectd": [], "GSConnect → kdeconnectd": [], "kdeconnectd → GSConnect": []}
        runs = [
            ("kdeconnectd → kdeconnectd", lambda: timed_send(k_a, k_b, k["b"]["id"], loop)),
            ("GSConnect → kdeconnectd", lambda: timed_send(g_a, g_b, g["b"]["seen_by_a"], loop)),
            ("kdeconnectd → GSConnect", lambda: timed_send(g_b, g_a, g["a"]["id"], loop)),
        ]
        for round in range(ROUNDS + 2):
            order = runs if round % 2 == 0 else list(reversed(runs))
            for name, run in order:
                value = run()
                if round >= 2:  # the first rounds start the apps' and daemons' lazy paths
                    series[name].append(value)
        for label in ("kb", "gb", "ga"):  # the receivers
            events = [json.loads(line) for line in open(f"{work}/{label}/logs/notes.events") if '"ContinueUserActivity"' in line]
            assert events and all(e["scene"] == "note-42" for e in events), f"{label}: a handoff went to another scene"
        ms = lambda values: statistics.median(values) * 1000
        base = ms(series["kdeconnectd → kdeconnectd"])
        print(f"send → offer shown, {ROUNDS} rounds interleaved ({os.path.basename(bench.WAYPOST)} at {bench.WAYPOST})")
        for name, values in series.items():
            q = statistics.quantiles([v * 1000 for v in values], n=4)
            print(f"{name:28} {ms(values):7.2f} ms median (quartiles {q[0]:.2f}–{q[2]:.2f}), {ms(values) / base:5.2f}× kdeconnectd's")
    finally:
        for process in pairings:
            process.terminate()
            process.wait()
        for p in reversed(bench.processes):
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
