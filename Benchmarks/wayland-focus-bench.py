#!/usr/bin/python3
"""bench-wayland-focus: how long until the chosen window has keyboard focus on GNOME on Wayland.

GNOME Shell 43 (mutter 43) headless, driven as the Wayland tests drive it (the test extension in
Tests/WaylandTests/Fixtures: a virtual keyboard and pointer, and io.waypost.test.Shell). The user
clicks the opener (Tests/Apps/wayland_opener.py, a GTK app) and presses Return on a link in it; the
time is from the key press to mutter's focus window changing to the chosen window (the extension's
FocusChanged signal carries mutter's monotonic clock, which is this process's too). Interleaved in
one run, with the order of each pair shuffled:

  waypost  contacts://show?id=0F3A-ADA → Waypost → Tests/Apps/contacts_gtk.py, whose Ada window
           (mapped, not focused) presents with the opener's token
  direct   bench-direct://show?id=0F3A-ADA → a GtkApplication of the same shape (one window, same
           widgets) that GIO gives the link directly by org.freedesktop.Application.Open, with the
           same kind of token (the opener's launch context's)

Prints the medians, p10–p90, min–max and the ratio of the medians (SAMPLES=1: every sample too).
ROUNDS (default 30) rounds; WAYPOST names the waypost binary (default .build/release/waypost). Nothing touches the user's bus or files:
private system and session buses, HOME and XDG directories in a temporary directory.
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from gi.repository import Gio, GLib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("ROUNDS", "30"))
WAYPOST = os.path.realpath(os.environ.get("WAYPOST", os.path.join(ROOT, ".build/release/waypost")))
PYTHON = "/usr/bin/python3"
EXTENSION = "waypost-test@waypost.io"
SHELL_PATH, SHELL_INTERFACE = "/io/waypost/test/Shell", "io.waypost.test.Shell"
OPENER_NAME = "io.waypost.test.Opener"
TARGETS = {
    "waypost": ("contacts://show?id=0F3A-ADA", "Ada Lovelace – Contacts"),
    "direct": ("bench-direct://show?id=0F3A-ADA", "Ada Lovelace – Direct"),
}

# The direct path's app: what GtkApplication does with platform-data (the token set on the display
# before `open`) is the reference a Waypost participant's present() is measured against.
DIRECT_APP = '''
import sys, gi
gi.require_version("Gtk", "4.0")
from gi.repository import Gio, Gtk
NAMES = {"0F3A-ADA": "Ada Lovelace", "51C2-BOB": "Bob Kahn"}
class Direct(Gtk.Application):
    def __init__(self):
        super().__init__(application_id="io.waypost.bench.Direct", flags=Gio.ApplicationFlags.HANDLES_OPEN)
        self.window = None
    def do_open(self, files, _count, _hint):
        if self.window is None:
            self.window = Gtk.Window(application=self, default_width=420, default_height=360)
            box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12)
            rows = Gtk.ListBox()
            for name in NAMES.values():
                rows.append(Gtk.Label(label=name, xalign=0))
            button = Gtk.Button(label="New Window")
            for child in (Gtk.Label(label="Contacts"), rows, button):
                box.append(child)
            self.window.set_child(box)
            self.window.set_focus(button)
        contact = files[0].get_uri().rsplit("=", 1)[-1].upper()
        self.window.set_title(f"{NAMES.get(contact, contact)} – Direct")
        self.window.present()
Direct().run(sys.argv)
'''


class Desktop:
    """Private buses, a throwaway home with Waypost installed, GNOME Shell with the test extension."""

    def __init__(self, root):
        self.root, self.processes = root, []
        for directory in ["home", "data/applications", "data/dbus-1/services", "data/gnome-shell/extensions", "config", "runtime",
                          "logs", "machine-services", "system-share"]:
            os.makedirs(f"{root}/{directory}", exist_ok=True)
        os.chmod(f"{root}/runtime", 0o700)
        # /usr/share without its applications, as the tests' sessions: no machine app is a handler.
        for name in os.listdir("/usr/share"):
            if name != "applications":
                os.symlink(f"/usr/share/{name}", f"{root}/system-share/{name}")
        os.symlink("/usr/share/dbus-1/services/ca.desrt.dconf.service", f"{root}/machine-services/ca.desrt.dconf.service")
        with open(f"{root}/system.conf", "w") as config:
            config.write(f"""<busconfig><type>system</type><listen>unix:path={root}/system_bus_socket</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy></busconfig>""")
        with open(f"{root}/session.conf", "w") as config:
            config.write(f"""<busconfig><type>session</type><listen>unix:dir={root}/runtime</listen><auth>EXTERNAL</auth>
<servicedir>{root}/data/dbus-1/services</servicedir><servicedir>{root}/machine-services</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>""")
        self.env = {"PATH": "/usr/bin:/bin", "LANG": os.environ.get("LANG", "C.UTF-8"), "HOME": f"{root}/home",
                    "XDG_DATA_HOME": f"{root}/data", "XDG_CONFIG_HOME": f"{root}/config", "XDG_CACHE_HOME": f"{root}/cache",
                    "XDG_RUNTIME_DIR": f"{root}/runtime", "XDG_DATA_DIRS": f"{root}/system-share", "XDG_CONFIG_DIRS": f"{root}/config",
                    "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "GNOME",
                    "GDK_BACKEND": "wayland", "GIO_USE_VFS": "local", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSK_RENDERER": "cairo",
                    "DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={root}/system_bus_socket"}
        self.start_bus(f"{root}/system.conf")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.start_bus(f"{root}/session.conf")

    def start_bus(self, config):
        bus = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env, text=True)
        self.processes.append(bus)
        return bus.stdout.readline().strip()

    def run(self, *command, **extra):
        return subprocess.run(command, env=dict(self.env, **extra), check=True, capture_output=True, text=True)

    def spawn(self, name, *command):
        process = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=open(f"{self.root}/logs/{name}.log", "w"))
        self.processes.append(process)
        return process

    def install(self):
        apps = f"{self.root}/data/applications"
        with open(f"{apps}/io.waypost.example.ContactsPython.desktop", "w") as entry:
            entry.write(f"[Desktop Entry]\nType=Application\nName=Contacts (Python)\nExec={PYTHON} {ROOT}/Tests/Apps/contacts_gtk.py\n"
                        "StartupNotify=true\nMimeType=x-scheme-handler/contacts;\nX-Waypost=true\n")
        with open(f"{self.root}/direct.py", "w") as program:
            program.write(DIRECT_APP)
        with open(f"{apps}/io.waypost.bench.Direct.desktop", "w") as entry:
            entry.write(f"[Desktop Entry]\nType=Application\nName=Direct\nExec={PYTHON} {self.root}/direct.py %U\nDBusActivatable=true\n"
                        "StartupNotify=true\nMimeType=x-scheme-handler/bench-direct;\n")
        with open(f"{self.root}/data/dbus-1/services/io.waypost.bench.Direct.service", "w") as service:
            service.write(f"[D-BUS Service]\nName=io.waypost.bench.Direct\nExec={PYTHON} {self.root}/direct.py --gapplication-service\n")
        self.run("/usr/bin/update-desktop-database", apps)
        self.run(WAYPOST, "install", "--user")

    def start_shell(self):
        shutil.copytree(f"{ROOT}/Tests/WaylandTests/Fixtures/gnome-shell-extension", f"{self.root}/data/gnome-shell/extensions/{EXTENSION}")
        self.run("/usr/bin/gsettings", "set", "org.gnome.shell", "enabled-extensions", f"['{EXTENSION}']")
        self.run("/usr/bin/gsettings", "set", "org.gnome.shell", "welcome-dialog-last-shown-version", "'99'")
        self.spawn("gnome-shell", "/usr/bin/gnome-shell", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x800",
                   "--wayland-display", "wayland-0")
        self.bus = Gio.DBusConnection.new_for_address_sync(
            self.env["DBUS_SESSION_BUS_ADDRESS"], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        self.focus_changes = []
        self.bus.signal_subscribe("org.gnome.Shell", SHELL_INTERFACE, "FocusChanged", SHELL_PATH, None, Gio.DBusSignalFlags.NONE,
                                  lambda *args: self.focus_changes.append(args[5].unpack()))
        wait("GNOME Shell started up", lambda: self.overview().get("startingUp") is False, self)
        self.shell("HideOverview")
        wait("the overview is hidden", lambda: not self.overview()["visible"] and not self.overview()["animating"], self)
        self.shell("ClearNotifications")

    def call(self, name, path, interface, member, arguments=None):
        reply = self.bus.call_sync(name, path, interface, member, arguments, None, Gio.DBusCallFlags.NONE, 10000, None)
        return reply.unpack() if reply else ()

    def shell(self, member, *arguments, signature=""):
        return self.call("org.gnome.Shell", SHELL_PATH, SHELL_INTERFACE, member,
                         GLib.Variant(f"({signature})", arguments) if arguments else None)

    def overview(self):
        try:
            return json.loads(self.shell("Overview")[0])
        except GLib.Error:
            return {}

    def focused(self):
        window = json.loads(self.shell("FocusedWindow")[0])
        return window and window["title"]

    def window(self, title):
        return next((window for window in json.loads(self.shell("Windows")[0]) if window["title"] == title), {})

    def titles(self):
        return [window["title"] for window in json.loads(self.shell("Windows")[0]) if window["shown"]]

    def opener(self, member, *arguments):
        return self.call(OPENER_NAME, "/io/waypost/test/Opener", OPENER_NAME, member,
                         GLib.Variant("(s)", arguments) if arguments else None)

    def close(self):
        for process in reversed(self.processes):
            process.kill()
            process.wait()
        # And what the shell started outside the bus (ibus-daemon), or the bus started: every live
        # process whose XDG_RUNTIME_DIR is this session's (a zombie shows no environment).
        marker = f"XDG_RUNTIME_DIR={self.root}/runtime".encode()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            live = []
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/environ", "rb") as environment:
                        if marker in environment.read().split(b"\0"):
                            live.append(int(pid))
                except OSError:
                    continue
            if not live:
                return
            for pid in live:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)


def wait(what, condition, desktop, seconds=60):
    """Runs the main context (for the bus's signals) until condition() holds, at most `seconds`."""
    deadline = time.monotonic() + seconds
    context = GLib.MainContext.default()
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        if condition():
            return
        context.iteration(False) or time.sleep(0.005)
    try:
        state = f"windows: {desktop.shell('Windows')[0]}\nbanner: {desktop.shell('Banner')[0]!r}\n"
    except (AttributeError, GLib.Error):
        state = ""
    sys.exit(f"wayland-focus-bench: timed out waiting until {what}\n{state}" + open(f"{desktop.root}/logs/gnome-shell.log").read()[-3000:])


def one_round(desktop, kind):
    """µs from the Return press in the opener to mutter focusing the target window."""
    link, title = TARGETS[kind]
    clicked = desktop.window("Opener")["userTime"]
    wait("the opener is clicked", lambda: desktop.shell("ClickWindow", "Opener", signature="s")[0], desktop)
    # Taken by mutter (a new user time), not only focused: a later click would make the token stale.
    wait("the opener has focus", lambda: desktop.window("Opener")["focused"] and desktop.window("Opener")["userTime"] != clicked, desktop)
    desktop.opener("SetLink", link)
    seen = len(desktop.focus_changes)
    start = time.monotonic_ns() // 1000
    desktop.shell("PressKey", "Return", signature="s")
    wait(f"{title} has focus", lambda: any(change[0] == title for change in desktop.focus_changes[seen:]), desktop)
    return next(change[2] for change in desktop.focus_changes[seen:] if change[0] == title) - start


def summary(name, samples):
    ordered = sorted(samples)
    decile = statistics.quantiles(ordered, n=10, method="inclusive")
    return (f"{name:8} median {statistics.median(ordered) / 1000:7.1f} ms   p10–p90 {decile[0] / 1000:6.1f}–{decile[-1] / 1000:6.1f} ms"
            f"   min–max {ordered[0] / 1000:6.1f}–{ordered[-1] / 1000:6.1f} ms")


def main():
    if not os.access(WAYPOST, os.X_OK):
        sys.exit(f"wayland-focus-bench: no waypost at {WAYPOST} (build it, or set WAYPOST)")
    root = tempfile.mkdtemp(prefix="waypost-wayland-bench-")
    desktop = Desktop(root)
    try:
        desktop.install()
        desktop.start_shell()
        # Both targets running, their windows mapped (a new window takes focus with or without a token).
        for kind, (link, title) in TARGETS.items():
            desktop.run("/usr/bin/gio", "open", link)
            wait(f"{title} is on screen", lambda: title in desktop.titles(), desktop)
        desktop.spawn("opener", PYTHON, f"{ROOT}/Tests/Apps/wayland_opener.py", "Opener")
        wait("the opener is on screen", lambda: "Opener" in desktop.titles(), desktop)
        for kind in TARGETS:  # warm-up, untimed
            one_round(desktop, kind)
        samples = {kind: [] for kind in TARGETS}
        for _ in range(ROUNDS):
            for kind in random.sample(list(TARGETS), len(TARGETS)):
                samples[kind].append(one_round(desktop, kind))
        print(f"Return in the focused GTK app → the chosen window focused, mutter 43 headless, {ROUNDS} interleaved rounds ({WAYPOST})")
        for kind in TARGETS:
            print(summary(kind, samples[kind]))
        print(f"ratio waypost/direct (medians): {statistics.median(samples['waypost']) / statistics.median(samples['direct']):.2f}×")
        if os.environ.get("SAMPLES"):
            for kind in TARGETS:
                print(kind, " ".join(f"{sample / 1000:.1f}" for sample in sorted(samples[kind])))
    finally:
        desktop.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
