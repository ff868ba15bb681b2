#!/usr/bin/python3
"""make demo's handoff: one activity handed from device A to device B over two real kdeconnectd.

Usage: demo-handoff.py BIN_PATH (the build's products: waypost). Two devices as bench-handoff makes
them (Benchmarks/handoff-bench.py: each its bus, XDG home, Xvfb, Waypost and the sample app; the two
kdeconnectd in network namespaces, paired over D-Bus). Network namespaces need root: without it, this
says so and stops.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if os.geteuid() != 0:
        print("Handoff demo skipped: two kdeconnectd in network namespaces need root (ip netns, a veth pair).")
        return 0
    if not os.access("/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd", os.X_OK):
        print("Handoff demo skipped: Debian's kdeconnect is not installed (make deps installs it).")
        return 0
    os.environ["WAYPOST"] = os.path.join(sys.argv[1], "waypost")
    spec = importlib.util.spec_from_file_location("handoff_bench", os.path.join(ROOT, "Benchmarks/handoff-bench.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def waypost(env, *arguments):
        result = subprocess.run([bench.WAYPOST, *arguments], env=env, capture_output=True, text=True)
        for line in (result.stdout + result.stderr).strip().splitlines():
            print("    " + line)
        return result

    work = tempfile.mkdtemp(prefix="waypost-handoff-demo-")
    pairing = None
    try:
        print("== Handoff: two devices, each its own desktop, KDE Connect between them ==")
        a_env, b_env = bench.device(f"{work}/a", "Alpha"), bench.device(f"{work}/b", "Beta")
        pairing = subprocess.Popen([bench.PYTHON, f"{bench.FIXTURES}/kdeconnect_pair.py", f"{work}/a/kdeconnect.json",
                                    f"{work}/b/kdeconnect.json"], stdout=subprocess.PIPE, stderr=open(f"{work}/pairing.log", "ab"))
        paired = json.loads(pairing.stdout.readline())
        print(f"Alpha ({paired['a']['address']}) and Beta ({paired['b']['address']}) paired over KDE Connect.")
        bench.install_app(f"{work}/a", a_env, [["note-42", [[["note/42"], []]]]], ["note-42", bench.EDIT, bench.ACTIVITY])
        bench.install_app(f"{work}/b", b_env, [["list", [[[], ["*"]]]], ["note-42", [[["note/42"], []]]]])
        print("On Alpha, Notes shows ‘Shopping list’ (note/42); on Beta, Notes has its list and note 42 open.")
        print("Alpha: waypost handoff devices")
        waypost(a_env, "handoff", "devices")
        # Beta's daemon says when it holds the offer (OffersChanged).
        bench.DBusGMainLoop(set_as_default=True)
        b_bus = bench.dbus.bus.BusConnection(b_env["DBUS_SESSION_BUS_ADDRESS"])
        loop = bench.GLib.MainLoop()
        b_bus.add_signal_receiver(loop.quit, "OffersChanged", "io.waypost.Handoff1", path="/io/waypost/Handoff")
        bench.GLib.timeout_add(10000, loop.quit)
        print("Alpha: waypost handoff send --device Beta")
        waypost(a_env, "handoff", "send", "--device", "Beta")
        loop.run()
        print("Beta: waypost handoff list (an offer: nothing continues until the user accepts)")
        listed = subprocess.run([bench.WAYPOST, "handoff", "list"], env=b_env, capture_output=True, text=True).stdout
        for line in listed.strip().splitlines():
            print("    " + line)
        offer = listed.split("\t")[0]
        print(f"Beta: waypost handoff accept {offer}")
        waypost(b_env, "handoff", "accept", offer)
        for line in open(f"{work}/b/logs/notes.events"):
            event = json.loads(line)
            if event.get("event") == "ContinueUserActivity":
                print(f"Beta's Notes, scene {event['scene']}: {event['type']} with user info {json.dumps(event['activity']['user-info'])}")
    finally:
        if pairing:
            pairing.terminate()
            pairing.wait()
        for p in reversed(bench.processes):
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
