#!/usr/bin/python3
"""bench-handoff: a handoff between two devices over two real kdeconnectd (Benchmarks/README.md).

1. send → offer shown: A's daemon `Handoff1.Send` → B's daemon emits `OffersChanged` (where the offer's
   notification is posted), over KDE Connect in two network namespaces.
2. accept → the scene has it: B's `Handoff1.Accept` → its reply (sent once B's app acknowledged
   `ContinueUserActivity` in the right scene), beside a local `ContinueActivity` of the same activity on
   B (what `waypost continue` calls), interleaved: medians and their ratio (target ≤ 1.2×).

Each device: a private dbus-daemon (socket file), HOME and XDG directories, Xvfb, `waypost install
--user`, Tests/Apps/sample_app.py; the namespaces and the pairing are Tests/HandoffTests/Fixtures/
kdeconnect_pair.py's. Needs root. WAYPOST names the waypost binary (the release build).
"""
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks"))
from lab_bus import lab_bus_config  # noqa: E402
FIXTURES = os.path.join(ROOT, "Tests/HandoffTests/Fixtures")
SAMPLE = os.path.join(ROOT, "Tests/Apps/sample_app.py")
ROUNDS = int(os.environ.get("ROUNDS", "20"))
WAYPOST = os.path.realpath(os.environ.get("WAYPOST", os.path.join(ROOT, ".build/release/waypost")))
PYTHON = "/usr/bin/python3"
EDIT = "com.example.notes.edit"
ACTIVITY = {"title": "Shopping list", "target-content-identifier": "note/42", "webpage-url": "https://notes.example/n/42",
            "user-info": {"id": 42, "ratio": 1.5, "tags": ["milk", "eggs"]}}
processes = []


def device(root, name):
    for d in ["home", "data/applications", "config", "cache", "runtime", "logs"]:
        os.makedirs(f"{root}/{d}", exist_ok=True)
    os.chmod(f"{root}/runtime", 0o700)
    xvfb = subprocess.Popen(["/usr/bin/Xvfb", "-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    processes.append(xvfb)
    display = xvfb.stdout.readline().decode().strip()
    env = {"PATH": "/usr/bin:/bin", "HOME": f"{root}/home", "XDG_DATA_HOME": f"{root}/data", "XDG_CONFIG_HOME": f"{root}/config",
           "XDG_CACHE_HOME": f"{root}/cache", "XDG_RUNTIME_DIR": f"{root}/runtime", "XDG_DATA_DIRS": "/usr/share",
           "XDG_CONFIG_DIRS": f"{root}/config", "GIO_USE_VFS": "local", "DISPLAY": f":{display}", "XDG_CURRENT_DESKTOP": "X-Generic"}
    bus = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={lab_bus_config(root)}", "--nofork", "--print-address=1"],
                           env=env, stdout=subprocess.PIPE, stderr=open(f"{root}/logs/bus.log", "ab"))
    processes.append(bus)
    env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().decode().strip()
    with open(f"{root}/kdeconnect.json", "w") as f:
        json.dump({"environment": env, "name": name, "log": f"{root}/logs/kdeconnectd.log"}, f)
    return env


def install_app(root, env, scenes, publish=None):
    config = {"app_id": "org.example.Notes", "log": f"{root}/logs/notes.events", "declarations": [["main", {"kind": "window-group"}]],
              "scenes": [{"id": i, "declaration": "main", "modifiers": m} for i, m in scenes]}
    if publish:
        config["publish"] = publish
    with open(f"{root}/notes.json", "w") as f:
        json.dump(config, f)
    with open(f"{root}/data/applications/org.example.Notes.desktop", "w") as f:
        f.write(f"[Desktop Entry]\nType=Application\nName=Notes\nExec={PYTHON} {SAMPLE} {root}/notes.json\n"
                f"X-Waypost=true\nX-Waypost-Activity-Types={EDIT};\n")
    subprocess.run(["/usr/bin/update-desktop-database", f"{root}/data/applications"], check=True)
    subprocess.run([WAYPOST, "install", "--user"], env=env, check=True, capture_output=True)
    app = subprocess.Popen([PYTHON, SAMPLE, f"{root}/notes.json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    processes.append(app)
    assert app.stdout.readline().strip() == b"ready"


def typed(value):
    if isinstance(value, int):
        return dbus.Int64(value)
    if isinstance(value, float):
        return dbus.Double(value)
    if isinstance(value, list):
        return dbus.Array([typed(v) for v in value], signature="v")
    if isinstance(value, dict):
        return dbus.Dictionary({k: typed(v) for k, v in value.items()}, signature="sv")
    return dbus.String(value)


def main():
    DBusGMainLoop(set_as_default=True)
    work = tempfile.mkdtemp(prefix="waypost-handoff-bench-")
    pairing = None
    try:
        a_env, b_env = device(f"{work}/a", "Alpha"), device(f"{work}/b", "Beta")
        pairing = subprocess.Popen([PYTHON, f"{FIXTURES}/kdeconnect_pair.py", f"{work}/a/kdeconnect.json", f"{work}/b/kdeconnect.json"],
                                   stdout=subprocess.PIPE, stderr=open(f"{work}/pairing.log", "ab"))
        paired = json.loads(pairing.stdout.readline())
        install_app(f"{work}/a", a_env, [["note-42", [[["note/42"], []]]]], ["note-42", EDIT, ACTIVITY])
        install_app(f"{work}/b", b_env, [["list", [[[], ["*"]]]], ["note-42", [[["note/42"], []]]]])
        a_bus = dbus.bus.BusConnection(a_env["DBUS_SESSION_BUS_ADDRESS"])
        b_bus = dbus.bus.BusConnection(b_env["DBUS_SESSION_BUS_ADDRESS"])
        a_handoff = dbus.Interface(a_bus.get_object("io.waypost.Dispatcher", "/io/waypost/Handoff"), "io.waypost.Handoff1")
        b_handoff = dbus.Interface(b_bus.get_object("io.waypost.Dispatcher", "/io/waypost/Handoff"), "io.waypost.Handoff1")
        b_dispatcher = dbus.Interface(b_bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1")
        loop = GLib.MainLoop()
        shown = []
        b_bus.add_signal_receiver(lambda: (shown.append(time.perf_counter()), loop.quit()), "OffersChanged", "io.waypost.Handoff1",
                                  path="/io/waypost/Handoff")
        activity = typed(ACTIVITY)
        sends, accepts, continues = [], [], []
        for round in range(ROUNDS + 2):
            shown.clear()
            start = time.perf_counter()
            a_handoff.Send(paired["b"]["id"], "", False)
            GLib.timeout_add(10000, loop.quit)
            offers = []
            while not offers:  # an earlier accept's OffersChanged may come first
                while not shown:
                    loop.run()
                offers = b_handoff.ListOffers()
                if not offers:
                    shown.clear()
            send = shown[-1] - start
            offer = str(offers[-1]["id"])
            # The accept itself emits OffersChanged: nobody waits for it, drained below. The two in
            # alternating order, so that neither always runs in the other's wake.
            def timed_accept():
                start = time.perf_counter()
                b_handoff.Accept(offer, dbus.Dictionary({}, signature="sv"))
                return time.perf_counter() - start

            def timed_local():
                start = time.perf_counter()
                b_dispatcher.ContinueActivity(EDIT, activity, dbus.Dictionary({}, signature="sv"))
                return time.perf_counter() - start
            if round % 2:
                accept, local = timed_accept(), timed_local()
            else:
                local = timed_local()
                accept = timed_accept()
            while GLib.MainContext.default().iteration(False):
                pass
            if round >= 2:  # the first rounds start the apps' and daemons' lazy paths
                sends.append(send)
                accepts.append(accept)
                continues.append(local)
        events = [json.loads(line) for line in open(f"{work}/b/logs/notes.events") if '"ContinueUserActivity"' in line]
        assert all(e["scene"] == "note-42" for e in events), "a handoff went to another scene"
        ms = lambda values: statistics.median(values) * 1000
        print(f"handoff over KDE Connect, {ROUNDS} rounds ({os.path.basename(WAYPOST)} at {WAYPOST})")
        print(f"send → offer shown on B:                {ms(sends):7.2f} ms median")
        print(f"accept → B's scene has it:              {ms(accepts):7.2f} ms median")
        print(f"local ContinueActivity → B's scene:     {ms(continues):7.2f} ms median")
        print(f"accept / local continue:                {ms(accepts) / ms(continues):7.2f}× (target ≤ 1.2×)")
    finally:
        if pairing:
            pairing.terminate()
            pairing.wait()
        for p in reversed(processes):
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
