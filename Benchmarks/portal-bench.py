#!/usr/bin/python3
"""bench-portal: a click in real Chromium on a participating app's link with the real portal on the bus
(Benchmarks/README.md): Chromium hands it to OpenURI, the portal to Waypost without asking, Waypost
to the running app's scene; beside the same click on a link whose scheme a running DBusActivatable
app alone declares, which the portal hands to that app directly (org.freedesktop.Application.Open).
Interleaved in one run; from the click to the app's handler: medians, p10-p90 and their ratio
(target 1.1 at most).

A throwaway session: private dbus-daemon loading the real xdg-desktop-portal 1.16, its GTK backend
and permission store (XDG_CURRENT_DESKTOP=GNOME), HOME and XDG directories, Xvfb. WAYPOST names the
waypost binary (the release build); ROUNDS the rounds (40).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import http.server

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
browser_bench = __import__("browser-bench")  # noqa: E402  (its session, Chromium and click helpers)
from chromium_driver import Pages  # noqa: E402

ROOT, PYTHON, WAYPOST = browser_bench.ROOT, browser_bench.PYTHON, browser_bench.WAYPOST
ROUNDS = int(os.environ.get("ROUNDS", "40"))
PORTAL = ["org.freedesktop.portal.Desktop", "org.freedesktop.impl.portal.PermissionStore", "org.freedesktop.impl.portal.desktop.gtk"]

# The DBusActivatable app that alone declares benchdirect: org.freedesktop.Application.Open reports
# each link as sample_app.py reports its events (a JSON line with "uri").
DIRECT_APP = r'''
import json, sys
import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
log = open(sys.argv[1], "w", buffering=1)
class App(dbus.service.Object):
    @dbus.service.method("org.freedesktop.Application", in_signature="asa{sv}", out_signature="")
    def Open(self, uris, platform_data):
        for uri in uris: log.write(json.dumps({"event": "Open", "uri": str(uri)}) + "\n")
    @dbus.service.method("org.freedesktop.Application", in_signature="a{sv}", out_signature="")
    def Activate(self, platform_data): pass
name = dbus.service.BusName("io.waypost.bench.Direct", bus)
App(bus, "/io/waypost/bench/Direct")
print("ready", flush=True)
GLib.MainLoop().run()
'''


def start_session(root, display):
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": f"{root}/home", "XDG_DATA_HOME": f"{root}/data",
                   "XDG_CONFIG_HOME": f"{root}/config", "XDG_CACHE_HOME": f"{root}/cache", "XDG_RUNTIME_DIR": f"{root}/runtime",
                   "XDG_DATA_DIRS": "/usr/share", "XDG_CONFIG_DIRS": f"{root}/config", "GIO_USE_VFS": "local",
                   "XDG_CURRENT_DESKTOP": "GNOME", "DISPLAY": ":" + display, "GTK_A11Y": "none", "NO_AT_BRIDGE": "1"}
    for directory in ["home", "data/applications", "data/dbus-1/services", "config", "runtime", "logs", "machine-services"]:
        os.makedirs(f"{root}/{directory}", exist_ok=True)
    os.chmod(f"{root}/runtime", 0o700)
    for name in PORTAL:
        os.symlink(f"/usr/share/dbus-1/services/{name}.service", f"{root}/machine-services/{name}.service")
    with open(f"{root}/bus.conf", "w") as config:
        config.write(f"""<busconfig><type>session</type><listen>unix:dir={root}/runtime</listen><auth>EXTERNAL</auth>
<servicedir>{root}/data/dbus-1/services</servicedir><servicedir>{root}/machine-services</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>""")
    bus = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={root}/bus.conf", "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, env=environment, text=True, stderr=subprocess.DEVNULL)
    environment["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
    return bus, environment


def main():
    root = tempfile.mkdtemp(prefix="waypost-portal-bench-")
    processes = []
    try:
        display_read, display_write = os.pipe()
        xvfb = subprocess.Popen(["/usr/bin/Xvfb", "-displayfd", str(display_write), "-screen", "0", "1280x4000x24", "-nolisten", "tcp"],
                                pass_fds=(display_write,), stderr=subprocess.DEVNULL)
        processes.append(xvfb)
        os.close(display_write)
        display = b""
        while not display.endswith(b"\n"):
            display += os.read(display_read, 64)
        display = display.decode().strip()
        bus, environment = start_session(root, display)
        processes.append(bus)
        fifo = f"{root}/logs/events"
        os.mkfifo(fifo)
        events = os.fdopen(os.open(fifo, os.O_RDWR), "r")

        config = {"app_id": "org.example.Routed", "log": fifo, "behaviour": {}, "declarations": [["main", {"kind": "window-group"}]],
                  "scenes": [{"id": "s", "declaration": "main", "modifiers": [[[], ["*"]]]}]}
        json.dump(config, open(f"{root}/routed.json", "w"))
        with open(f"{root}/data/applications/org.example.Routed.desktop", "w") as entry:
            entry.write(f"[Desktop Entry]\nType=Application\nName=Routed\nExec={PYTHON} {ROOT}/Tests/Apps/sample_app.py {root}/routed.json\n"
                        "MimeType=x-scheme-handler/benchwp;\nX-Waypost=true\n")
        with open(f"{root}/direct.py", "w") as script:
            script.write(DIRECT_APP)
        with open(f"{root}/data/applications/io.waypost.bench.Direct.desktop", "w") as entry:
            entry.write(f"[Desktop Entry]\nType=Application\nName=Direct\nExec={PYTHON} {root}/direct.py {fifo}\nDBusActivatable=true\n"
                        "MimeType=x-scheme-handler/benchdirect;\n")
        subprocess.run(["/usr/bin/update-desktop-database", f"{root}/data/applications"], env=environment, check=True)
        subprocess.run([WAYPOST, "install"], env=environment, check=True, stdout=subprocess.DEVNULL)
        for argv in ([PYTHON, f"{ROOT}/Tests/Apps/sample_app.py", f"{root}/routed.json"], [PYTHON, f"{root}/direct.py", fifo]):
            app = subprocess.Popen(argv, env=environment, stdout=subprocess.PIPE, text=True)
            processes.append(app)
            assert app.stdout.readline().strip() == "ready"
        events.readline()  # the routed app's "ready" record

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
        port = server.server_address[1]
        links = "".join(f'<p><a id="w{i}" href="benchwp://item?{i}">waypost {i}</a> <a id="d{i}" href="benchdirect://item?{i}">direct {i}</a></p>'
                        for i in range(ROUNDS + 5))
        Pages.pages = {"page.html": f'<!DOCTYPE html><body style="font-size: 20px">{links}'}
        threading.Thread(target=server.serve_forever, daemon=True).start()
        os.makedirs(f"{root}/chromium-profile/Default", exist_ok=True)
        with open(f"{root}/chromium-profile/Default/Preferences", "w") as preferences:
            json.dump({"protocol_handler": {"allowed_origin_protocol_pairs": {f"http://localhost:{port}": {"benchwp": True, "benchdirect": True}}}},
                      preferences)
        process, tools, session = browser_bench.chromium(root, environment, display, "chromium", extension=False)
        processes.append(process)
        browser_bench.load(tools, session, f"http://localhost:{port}/page.html")

        def handled(url):
            while True:
                record = json.loads(events.readline())
                if record.get("uri") == url:
                    return time.perf_counter()

        times = {"waypost": [], "direct": []}
        for i in range(ROUNDS + 5):
            pair = [("waypost", f"#w{i}", f"benchwp://item?{i}"), ("direct", f"#d{i}", f"benchdirect://item?{i}")]
            for name, selector, url in (pair if i % 2 == 0 else reversed(pair)):
                started = browser_bench.click(tools, session, selector)
                took = handled(url) - started
                if i >= 5:
                    times[name].append(took)

        def line(label, values):
            ordered = sorted(values)
            return (f"{label:64s} median {statistics.median(values) * 1000:7.2f} ms"
                    f"  (p10 {ordered[len(ordered) // 10] * 1000:.2f}, p90 {ordered[len(ordered) * 9 // 10] * 1000:.2f})")
        print(f"bench-portal: Chromium, xdg-desktop-portal on the bus, {ROUNDS} rounds interleaved")
        print(line("click → OpenURI → Waypost → the app's scene", times["waypost"]))
        print(line("click → OpenURI → the DBusActivatable app alone declaring it", times["direct"]))
        print(f"  ratio: {statistics.median(times['waypost']) / statistics.median(times['direct']):.2f}× (target ≤ 1.1×)")
    finally:
        for process in reversed(processes):
            process.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
