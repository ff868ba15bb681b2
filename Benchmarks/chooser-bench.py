#!/usr/bin/python3
"""bench-chooser: Waypost's chooser window beside the portal's own (Benchmarks/README.md).

1. An ambiguous link → the chooser window mapped: `gio open benchpick://…`, a scheme two
   participating apps declare, goes to Waypost, which starts `waypost choose` (a process of its own
   that loads GTK 4); timed from gio's start until a window titled "Open with — Waypost" is viewable.
   Beside it, `org.freedesktop.portal.OpenURI.OpenURI` with ask=true for a `benchportal:` link that
   two plain entries of the same names declare: until the GTK backend's "Open With…" dialog is
   viewable (it lives in the already running xdg-desktop-portal-gtk). And, to tell the process from
   the rest: `waypost choose` with the same candidates and gtk4-floor.c (a C program linked with GTK
   4 showing a window of the same shape) started here until viewable, with their resident memory
   beside the portal backend's. Each window is closed with Escape (xdotool activates it and types by
   XTEST: GTK ignores a synthetic `key --window`), and the next round waits for it to be gone (and
   for its process to exit).
2. A remembered choice beside an unambiguous link: `waypost choices set scheme:benchpick
   org.example.A`, then `gio open benchpick://…` beside `gio open benchsolo://…` (a scheme only A
   declares), both apps running; timed from gio's start until app A logged the link.

Interleaved in one run (each kind first in turn); medians, p10-p90 and ratios.
Mapping is seen from X events, not polled: map-watch.c (built here with cc) selects
SubstructureNotify on the root window and StructureNotify on each new top-level window, and stamps
with CLOCK_MONOTONIC (the clock time.monotonic_ns reads) the event after which the titled window is
viewable (its client and openbox's frame both mapped).

A throwaway session: Xvfb, openbox, a private dbus-daemon loading the real xdg-desktop-portal, its
GTK backend and permission store (portal-bench's session, XDG_CURRENT_DESKTOP=GNOME), the sample
apps, `waypost install`. WAYPOST names the waypost binary (the release build); ROUNDS the rounds
(20), WARM the uncounted rounds before them (3); GSK_RENDERER, when set, is the session's (GTK 4's
renderer: Xvfb has no GPU, so GTK 4's default GL renderer runs on Mesa's llvmpipe).
"""
import json
import os
import queue
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import dbus

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
portal_bench = __import__("portal-bench")  # noqa: E402  (its session: bus with the real portal)

ROOT, PYTHON, WAYPOST = portal_bench.ROOT, portal_bench.PYTHON, portal_bench.WAYPOST
ROUNDS = int(os.environ.get("ROUNDS", "20"))
WARM = int(os.environ.get("WARM", "3"))
OURS_TITLE = "Open with — Waypost"
PORTAL_TITLE = "Open With…"  # xdg-desktop-portal-gtk 1.14's app chooser
FLOOR_TITLE = "chooser-bench floor"  # gtk4-floor.c


def entry(root, app_id, name, exec_line, schemes, participating):
    with open(f"{root}/data/applications/{app_id}.desktop", "w") as file:
        file.write(f"[Desktop Entry]\nType=Application\nName={name}\nExec={exec_line}\n"
                   f"MimeType={''.join(f'x-scheme-handler/{s};' for s in schemes)}\n" + ("X-Waypost=true\n" if participating else ""))


class Watcher:
    """map-watch's lines, in a queue."""

    def __init__(self, root, environment):
        binary = f"{root}/map-watch"
        subprocess.run(["cc", "-O2", "-o", binary, f"{HERE}/map-watch.c", "-lX11"], check=True)
        self.process = subprocess.Popen([binary, OURS_TITLE, PORTAL_TITLE, FLOOR_TITLE], env=environment, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "ready"
        self.lines = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            kind, index, window, at = line.split()
            self.lines.put((kind, int(index), window, int(at)))

    def next(self, kind, index=None, window=None, timeout=30):
        """The next line of KIND (for INDEX's title, or WINDOW), earlier lines of other kinds dropped."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no {kind} line for {index if window is None else window} within {timeout} s") from None
            if line[0] == kind and (index is None or line[1] == index) and (window is None or line[2] == window):
                return line


def choosers_running(bus_address):
    """The `waypost choose` processes of this session (its bus address in their environment) alive now."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and argv[1] == b"choose" and os.path.basename(argv[0]) == b"waypost":
            try:
                if b"DBUS_SESSION_BUS_ADDRESS=" + bus_address.encode() in open(f"/proc/{pid}/environ", "rb").read().split(b"\0"):
                    found.append(int(pid))
            except OSError:
                continue
    return found


def resident_kib(pid):
    """The process's resident memory now (VmRSS), in KiB."""
    for row in open(f"/proc/{pid}/status"):
        if row.startswith("VmRSS:"):
            return int(row.split()[1])


def portal_backend(bus_address):
    """The pid of this session's xdg-desktop-portal-gtk."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if (open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].endswith(b"/xdg-desktop-portal-gtk")
                    and b"DBUS_SESSION_BUS_ADDRESS=" + bus_address.encode() in open(f"/proc/{pid}/environ", "rb").read().split(b"\0")):
                return int(pid)
        except OSError:
            continue


def close(environment, watcher, window):
    """Escape to WINDOW, activated (GTK ignores xdotool's synthetic key --window), then its end."""
    for attempt in range(3):
        subprocess.run(["/usr/bin/xdotool", "windowactivate", "--sync", window, "key", "Escape"], env=environment, check=True,
                       stderr=subprocess.DEVNULL)
        try:
            return watcher.next("gone", window=window, timeout=5)
        except TimeoutError:
            if attempt == 2:
                raise


def spread(values):
    ordered = sorted(values)
    return statistics.median(values), ordered[len(ordered) // 10], ordered[len(ordered) * 9 // 10]


def line(label, values):
    median, p10, p90 = spread(values)
    return f"{label:58s} median {median * 1000:7.2f} ms  (p10 {p10 * 1000:.2f}, p90 {p90 * 1000:.2f})"


def main():
    root = tempfile.mkdtemp(prefix="waypost-chooser-bench-")
    processes = []
    environment = {}
    try:
        display_read, display_write = os.pipe()
        xvfb = subprocess.Popen(["/usr/bin/Xvfb", "-displayfd", str(display_write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                pass_fds=(display_write,), stderr=subprocess.DEVNULL)
        processes.append(xvfb)
        os.close(display_write)
        display = b""
        while not display.endswith(b"\n"):
            display += os.read(display_read, 64)
        display = display.decode().strip()
        bus, environment = portal_bench.start_session(root, display)
        if os.environ.get("GSK_RENDERER"):  # GTK 4's renderer, for the chooser and the floor (the portal's GTK 3 draws with cairo)
            environment["GSK_RENDERER"] = os.environ["GSK_RENDERER"]
            # ... and for what the bus starts (Waypost, and so the chooser it spawns), before it starts anything.
            subprocess.run(["/usr/bin/dbus-update-activation-environment", "GSK_RENDERER"], env=environment, check=True)
        processes.append(bus)
        openbox = subprocess.Popen(["/usr/bin/openbox", "--sm-disable", "--startup", f"/usr/bin/touch {root}/openbox-ready"],
                                   env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(openbox)
        deadline = time.monotonic() + 20
        while not os.path.exists(f"{root}/openbox-ready"):
            assert time.monotonic() < deadline, "openbox did not start"
            time.sleep(0.02)

        # Two participating apps: both declare benchpick, A alone benchsolo. Two plain entries of the
        # same names declare benchportal, which Waypost therefore leaves to the portal.
        fifos = {}
        for app, schemes in [("A", ["benchpick", "benchsolo"]), ("B", ["benchpick"])]:
            fifos[app] = f"{root}/logs/{app}.events"
            os.mkfifo(fifos[app])
            config = {"app_id": f"org.example.{app}", "log": fifos[app], "behaviour": {}, "declarations": [["main", {"kind": "window-group"}]],
                      "scenes": [{"id": "s", "declaration": "main", "modifiers": [[[], ["*"]]]}]}
            json.dump(config, open(f"{root}/{app}.json", "w"))
            entry(root, f"org.example.{app}", f"Sample {app}", f"{PYTHON} {ROOT}/Tests/Apps/sample_app.py {root}/{app}.json", schemes, True)
            entry(root, f"org.example.Portal{app}", f"Sample {app}", "/bin/true %u", ["benchportal"], False)
        events = {app: os.fdopen(os.open(path, os.O_RDWR), "r") for app, path in fifos.items()}  # read-write: no end of file
        subprocess.run(["/usr/bin/update-desktop-database", f"{root}/data/applications"], env=environment, check=True)
        installed = subprocess.run([WAYPOST, "install"], env=environment, capture_output=True, text=True)  # warns of the machine's entries
        assert installed.returncode == 0, installed.stderr
        for app in ["A", "B"]:
            process = subprocess.Popen([PYTHON, f"{ROOT}/Tests/Apps/sample_app.py", f"{root}/{app}.json"], env=environment,
                                       stdout=subprocess.PIPE, text=True)
            processes.append(process)
            assert process.stdout.readline().strip() == "ready"
            events[app].readline()  # its "ready" record
        watcher = Watcher(root, environment)
        processes.append(watcher.process)

        connection = dbus.bus.BusConnection(environment["DBUS_SESSION_BUS_ADDRESS"])
        open_uri = dbus.Interface(connection.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop"),
                                  "org.freedesktop.portal.OpenURI")

        def ours(i):
            started = time.monotonic_ns()
            gio = subprocess.Popen(["/usr/bin/gio", "open", f"benchpick://x?{i}"], env=environment,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, window, mapped = watcher.next("mapped", index=0, timeout=30)
            close(environment, watcher, window)
            # Answered once the user cancelled; the daemon keeps its chooser process for the next.
            gio.wait(timeout=30)
            return (mapped - started) / 1e9

        waypost = dbus.Interface(connection.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1")

        def ours_dbus(i):
            """Waypost's Open called from this running process, as the portal's OpenURI is: no opener's start."""
            def call():
                try:
                    waypost.Open(f"benchpick://d?{i}", dbus.Dictionary({}, signature="sv"), timeout=30)
                except dbus.DBusException:
                    pass  # ChoiceCancelled: the window was closed
            started = time.monotonic_ns()
            caller = threading.Thread(target=call)
            caller.start()
            _, _, window, mapped = watcher.next("mapped", index=0, timeout=30)
            close(environment, watcher, window)
            caller.join(timeout=30)
            return (mapped - started) / 1e9

        resident = {"choose": [], "floor": []}

        def spawned(argv, index, name):
            """ARGV started here → its window (title INDEX) viewable; closed, and the process gone."""
            started = time.monotonic_ns()
            process = subprocess.Popen(argv, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, window, mapped = watcher.next("mapped", index=index, timeout=30)
            resident[name].append(resident_kib(process.pid))
            close(environment, watcher, window)
            process.wait(timeout=30)
            return (mapped - started) / 1e9

        floor = f"{root}/gtk4-floor"
        subprocess.run(f"cc -O2 -o {floor} {HERE}/gtk4-floor.c $(pkg-config --cflags --libs gtk4)", shell=True, check=True)

        def choose(i):
            return spawned([WAYPOST, "choose", "--subject", f"benchpick://x?{i}", "--scope", "scheme:benchpick",
                            "--candidate", "org.example.A", "--candidate", "org.example.B"], 0, "choose")

        def gtk_floor(i):
            return spawned([floor], 2, "floor")

        def portal(i):
            started = time.monotonic_ns()
            open_uri.OpenURI("", f"benchportal://x?{i}", {"ask": dbus.Boolean(True), "handle_token": f"bench{i}"})
            _, _, window, mapped = watcher.next("mapped", index=1, timeout=30)
            close(environment, watcher, window)
            return (mapped - started) / 1e9

        # Until the chooser window is in the build, the portal's side alone (the daemon answers AppNotChosen).
        probe = subprocess.run([WAYPOST, "choose", "--subject", "x", "--scope", "scheme:x"], capture_output=True, text=True)
        has_chooser = "Unknown option" not in probe.stderr
        kinds = [("ours", ours), ("dbus", ours_dbus), ("portal", portal), ("choose", choose), ("floor", gtk_floor)] if has_chooser else [("portal", portal), ("floor", gtk_floor)]
        times = {name: [] for name, _ in kinds}
        first = None  # Waypost's first chooser: the daemon starts its chooser process for it
        for i in range(WARM + ROUNDS):
            for name, measure in kinds[i % len(kinds):] + kinds[:i % len(kinds)]:  # each first in turn
                took = measure(i)
                if name == "ours" and first is None:
                    first = took
                if i >= WARM:
                    times[name].append(took)
                time.sleep(0.2)  # the closed window's process settles

        backend = resident_kib(portal_backend(environment["DBUS_SESSION_BUS_ADDRESS"]))
        # 2. The remembered choice beside the unambiguous link, both going to A.
        subprocess.run([WAYPOST, "choices", "set", "scheme:benchpick", "org.example.A"], env=environment, check=True, stdout=subprocess.DEVNULL)

        def delivered(url):
            started = time.monotonic_ns()
            gio = subprocess.Popen(["/usr/bin/gio", "open", url], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            while True:
                ready, _, _ = select.select([events["A"]], [], [], 20)
                if not ready:
                    gio.kill()
                    raise TimeoutError(f"A never logged {url}: {gio.communicate()[1].strip()}")
                record = json.loads(events["A"].readline())
                if record.get("uri") == url:
                    took = (time.monotonic_ns() - started) / 1e9
                    gio.wait(timeout=30)
                    return took

        delivery = {"remembered": [], "unambiguous": []}
        for i in range(WARM + ROUNDS):
            pair = [("remembered", f"benchpick://r?{i}"), ("unambiguous", f"benchsolo://u?{i}")]
            for name, url in (pair if i % 2 == 0 else reversed(pair)):
                took = delivered(url)
                if i >= WARM:
                    delivery[name].append(took)

        print(f"bench-chooser: Xvfb + openbox, xdg-desktop-portal on the bus, {ROUNDS} rounds interleaved ({WARM} uncounted first)"
              + (f", GSK_RENDERER={environment['GSK_RENDERER']}" if "GSK_RENDERER" in environment else ""))
        if has_chooser:
            print(f"  the session's first chooser (its process started, GTK loaded): {first * 1000:.1f} ms")
            print(line("gio open, ambiguous → Waypost's chooser viewable", times["ours"]))
            print(line("Open from a running process → Waypost's chooser viewable", times["dbus"]))
        else:
            print(f"{WAYPOST} has no `choose`: Waypost's chooser not measured")
        print(line("OpenURI ask=true → the portal's GTK chooser viewable", times["portal"]))
        if has_chooser:
            portal_median = statistics.median(times['portal'])
            print(f"  ratios to the portal (target ≤ 1.2×): gio open {statistics.median(times['ours']) / portal_median:.2f}×, "
                  f"Open from a running process {statistics.median(times['dbus']) / portal_median:.2f}×")
            print(line("waypost choose started here → its window viewable", times["choose"]))
        print(line("gtk4-floor (C, GTK 4 linked) started here → viewable", times["floor"]))
        if has_chooser:
            print(f"  ratios to the floor: gio open → chooser {statistics.median(times['ours']) / statistics.median(times['floor']):.2f}×,"
                  f" waypost choose {statistics.median(times['choose']) / statistics.median(times['floor']):.2f}×")
            print(f"  resident with the window shown: waypost choose {statistics.median(resident['choose']) / 1024:.1f} MiB,"
                  f" gtk4-floor {statistics.median(resident['floor']) / 1024:.1f} MiB; xdg-desktop-portal-gtk (always running) {backend / 1024:.1f} MiB")
        print(line("gio open, remembered choice → app A logged it", delivery["remembered"]))
        print(line("gio open, a scheme only A declares → app A logged it", delivery["unambiguous"]))
        print(f"  ratio: {statistics.median(delivery['remembered']) / statistics.median(delivery['unambiguous']):.2f}× (expected ~1.0)")
    finally:
        for pid in choosers_running(environment["DBUS_SESSION_BUS_ADDRESS"]) if "DBUS_SESSION_BUS_ADDRESS" in environment else []:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        for process in reversed(processes):
            process.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
