#!/usr/bin/python3
"""bench-cold: the session's first link, with nothing running (Benchmarks/README.md).

Each sample starts a fresh private dbus-daemon, so no process is warm, then `gio open`s one link:
- waypost: a participating app's link (`benchshop:`) after `waypost install --user`: the bus starts
  Waypost, Waypost launches the app (an `Exec=` entry), the app registers, the link is delivered;
- direct: a link whose default handler is the same kind of Python app (dbus-python, GLib) as a plain
  DBusActivatable entry: the bus starts it and hands it the link (the floor).
Both apps are written here, alike but for what each protocol asks: the participating one registers,
declares its scene group, opens one scene allowing every link, and answers CreateScene with AddScene
(as WaypostKit does); PARTICIPANT=sample runs the test suite's Tests/Apps/sample_app.py instead, which
also serves a test interface, follows the dispatcher's name and logs in JSON.
From just before `gio open` starts to the app's line on a FIFO (each app writes one when the link
arrives; the script waits for it with a deadline). Three desktops: the app alone; plus 150 of this
machine's other entries installed; plus 300 participating apps, each claiming a domain with an
installed association file; and the first again in a session a real systemd user manager runs, as
GNOME's and Plasma's are (the manager runs the bus, the bus asks it to start `waypost.service`, and
the direct app is forked by the bus as before; `SYSTEMD=0` leaves it out: it needs root, a mount
namespace and /usr/lib/systemd/systemd). Samples are shuffled within each round; after each cold sample, WARM
more links go to the now running handler (the warm ratio). Prints medians, p10-p90 and ratios.

WAYPOST names the waypost binary (the release build); ROUNDS the rounds (20), WARM (3).
WAYPOST_BEFORE names another build (an earlier commit's) whose first links are taken in the same
rounds, shuffled with the others, each desktop installed a second time for it: a change's effect
measured within one run, beside the same floor.
TRACE=DIR keeps each waypost sample's daemon log (`--verbose`) there (not in the systemd session), and STRACE=1 runs the daemon
under `strace -f -tt` into the same directory (for the breakdown; its times are then not the
benchmark's).
"""
import os
import random
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from lab_bus import lab_bus_config  # noqa: E402

WAYPOST = os.path.realpath(os.environ.get("WAYPOST", os.path.join(ROOT, ".build/release/waypost")))
BEFORE = os.environ.get("WAYPOST_BEFORE")
ROUNDS = int(os.environ.get("ROUNDS", "20"))
WARM = int(os.environ.get("WARM", "3"))
TRACE = os.environ.get("TRACE")
STRACE = os.environ.get("STRACE") == "1"
PYTHON = "/usr/bin/python3"
SAMPLE = os.environ.get("PARTICIPANT") == "sample"
SYSTEMD = os.environ.get("SYSTEMD", "1") == "1"
MANAGED = "one participating app, systemd session"
DEADLINE = 10.0
SHOP = "org.example.Shop"
DIRECT = "org.example.Direct"

# The plain DBusActivatable app: org.freedesktop.Application.Open writes each link to the FIFO.
DIRECT_APP = r'''
import sys
import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
class App(dbus.service.Object):
    @dbus.service.method("org.freedesktop.Application", in_signature="asa{sv}", out_signature="")
    def Open(self, uris, platform_data):
        with open(sys.argv[1], "a") as log:
            for uri in uris: log.write('{"event": "Open", "uri": "%s"}\n' % uri)
    @dbus.service.method("org.freedesktop.Application", in_signature="a{sv}", out_signature="")
    def Activate(self, platform_data): pass
name = dbus.service.BusName("org.example.Direct", bus)
App(bus, "/org/example/Direct")
GLib.MainLoop().run()
'''

# The participating app, from dbus/io.waypost.Application1.xml: registers, declares "main", opens
# "products" allowing every link, then serves; a new scene (CreateScene carries its event) is
# announced with AddScene before the reply.
PARTICIPATING_APP = r'''
import sys
import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
dispatcher = dbus.Interface(bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher", introspect=False),
                            "io.waypost.Dispatcher1")
class App(dbus.service.Object):
    scenes = 0
    @dbus.service.method("io.waypost.Application1", in_signature="ssa{sv}", out_signature="")
    def OpenURL(self, scene, uri, platform_data):
        delivered("OpenURL", uri)
    @dbus.service.method("io.waypost.Application1", in_signature="sa{sv}a{sv}", out_signature="s")
    def CreateScene(self, declaration, event, platform_data):
        self.scenes += 1
        scene = "%s-%d" % (declaration, self.scenes)
        dispatcher.AddScene(scene, declaration)
        delivered("CreateScene", event.get("uri", ""))
        return scene
def delivered(event, uri):
    with open(sys.argv[2], "a") as log: log.write('{"event": "%s", "uri": "%s"}\n' % (event, uri))
App(bus, "/org/example/Shop")
dispatcher.RegisterApplication(sys.argv[1], dbus.ObjectPath("/org/example/Shop"), dbus.Dictionary({}, signature="sv"))
dispatcher.DeclareScenes(dbus.Array([("main", dbus.Dictionary({"kind": "window-group"}, signature="sv"))], signature="(sa{sv})"))
dispatcher.AddScene("products", "main")
dispatcher.SetExternalEvents("products", dbus.Array([(dbus.Array([], signature="s"), dbus.Array(["*"], signature="s"))],
                                                    signature="(asas)"))
delivered("ready", "")
GLib.MainLoop().run()
'''

ASSOCIATION = ('{"applinks": {"details": [{"appIDs": ["%s"], "components": ['
               + ", ".join('{"/": "/section%d/*", "comment": "component %d"}' % (n, n) for n in range(20))
               + ']}]}}')


def environment_of(root):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": f"{root}/home", "XDG_DATA_HOME": f"{root}/data",
            "XDG_CONFIG_HOME": f"{root}/config", "XDG_CACHE_HOME": f"{root}/cache", "XDG_STATE_HOME": f"{root}/state",
            "XDG_RUNTIME_DIR": f"{root}/runtime", "XDG_DATA_DIRS": f"{root}/share", "XDG_CONFIG_DIRS": f"{root}/config",
            "GIO_USE_VFS": "local", "LANG": "C.UTF-8"}


def make_desktop(root, others, participating, waypost=WAYPOST):
    """A session's files: Waypost (`waypost`) installed, the shop app, the direct app, and the extra entries."""
    environment = environment_of(root)
    for directory in ["home", "data/applications", "data/dbus-1/services", "data/waypost/associations", "config",
                      "cache", "state", "runtime", "share/applications"]:
        os.makedirs(f"{root}/{directory}", exist_ok=True)
    os.chmod(f"{root}/runtime", 0o700)
    os.symlink("/usr/share/mime", f"{root}/share/mime")  # content types, as on any desktop
    lab_bus_config(root)
    fifo = f"{root}/delivered"
    os.mkfifo(fifo)
    with open(f"{root}/shop.json", "w") as config:
        config.write('{"app_id": "%s", "log": "%s", "behaviour": {}, "declarations": [["main", {"kind": "window-group"}]],'
                     ' "scenes": [{"id": "products", "declaration": "main", "modifiers": [[[], ["*"]]]}]}' % (SHOP, fifo))
    with open(f"{root}/participating_app.py", "w") as app:
        app.write(PARTICIPATING_APP)
    participant = (lambda app, config: f"{ROOT}/Tests/Apps/sample_app.py {config}") if SAMPLE else (
        lambda app, config: f"{root}/participating_app.py {app} {fifo}")
    applications = f"{root}/data/applications"
    with open(f"{applications}/{SHOP}.desktop", "w") as entry:
        entry.write(f"[Desktop Entry]\nType=Application\nName=Shop\nExec={PYTHON} {participant(SHOP, f'{root}/shop.json')}\n"
                    "MimeType=x-scheme-handler/benchshop;\nX-Waypost=true\n")
    with open(f"{root}/direct_app.py", "w") as app:
        app.write(DIRECT_APP)
    with open(f"{applications}/{DIRECT}.desktop", "w") as entry:
        entry.write(f"[Desktop Entry]\nType=Application\nName=Direct\nExec={PYTHON} {root}/direct_app.py {fifo}\n"
                    "DBusActivatable=true\nMimeType=x-scheme-handler/benchdirect;\n")
    with open(f"{root}/data/dbus-1/services/{DIRECT}.service", "w") as service:
        service.write(f"[D-BUS Service]\nName={DIRECT}\nExec={PYTHON} {root}/direct_app.py {fifo}\n")
    machine = sorted(name for name in os.listdir("/usr/share/applications") if name.endswith(".desktop"))
    for name in machine[:others]:
        shutil.copy(f"/usr/share/applications/{name}", f"{root}/share/applications/{name}")
    if len(machine) < others:
        sys.exit(f"only {len(machine)} entries in /usr/share/applications; {others} wanted")
    for n in range(participating):
        app = f"org.example.p{n}"
        with open(f"{applications}/{app}.desktop", "w") as entry:
            entry.write(f"[Desktop Entry]\nType=Application\nName=App {n}\nExec={PYTHON} {participant(app, f'{root}/p{n}.json')}\n"
                        f"MimeType=x-scheme-handler/benchp{n};\nX-Waypost=true\nX-Waypost-Associated-Domains=p{n}.example;\n")
        with open(f"{root}/data/waypost/associations/p{n}.example.json", "w") as association:
            association.write(ASSOCIATION % app)
    with open(f"{root}/config/mimeapps.list", "w") as defaults:
        defaults.write(f"[Default Applications]\nx-scheme-handler/benchdirect={DIRECT}.desktop;\n")
    for directory in [applications, f"{root}/share/applications"]:
        subprocess.run(["/usr/bin/update-desktop-database", directory], env=environment, check=True)
    subprocess.run([waypost, "install", "--user"], env=environment, check=True, stdout=subprocess.DEVNULL)
    if TRACE or STRACE:
        service = f"{root}/data/dbus-1/services/io.waypost.Dispatcher.service"
        text = open(service).read()
        log = f"{TRACE or root}/daemon-{os.path.basename(root)}-$$.log"
        wrapped = f"/bin/sh -c 'exec {'strace -f -tt --seccomp-bpf -e trace=execve,openat,connect,sendmsg,recvmsg,clone,clone3,vfork,exit_group -o ' + log.replace('.log', '.strace') + ' ' if STRACE else ''}{waypost} daemon --verbose 2>>{log}'"
        with open(service, "w") as out:
            out.write("\n".join(f"Exec={wrapped}" if line.startswith("Exec=") else line for line in text.splitlines()) + "\n")
    return environment, fifo


class Session:
    """A fresh private bus for one cold sample; `close` ends it and everything it started."""

    def __init__(self, root, environment):
        self.environment = dict(environment)
        self.bus = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={root}/bus.conf", "--nofork", "--print-address=1"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment, text=True,
                                    start_new_session=True)
        self.environment["DBUS_SESSION_BUS_ADDRESS"] = self.bus.stdout.readline().strip()

    def close(self):
        # The bus's process group holds what it activated and what those launched.
        try:
            os.killpg(self.bus.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.bus.wait()
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            try:
                os.killpg(self.bus.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.005)
        os.killpg(self.bus.pid, signal.SIGKILL)


MANAGED_UNITS = {
    "dbus.socket": "[Unit]\nDescription=The session's bus socket\n\n[Socket]\nListenStream=%t/bus\n",
    "dbus.service": "[Unit]\nDescription=The session's bus\nRequires=dbus.socket\n\n[Service]\nType=notify\nNotifyAccess=main\n"
                    "ExecStart=/usr/bin/dbus-daemon --config-file={root}/bus.conf --address=systemd: --nofork --nopidfile --systemd-activation\n",
    "lab.target": "[Unit]\nDescription=The session\nRequires=dbus.socket\nAfter=dbus.socket\n",
}


class ManagedSession:
    """A session run by a real `systemd --user`, as the tests' UserManager runs one: in a mount
    namespace where /run/systemd/system exists and the machine's environment generators are hidden,
    starting lab.target (the bus socket) rather than the machine's default.target, in a control group
    of its own (a manager takes every process of the group it starts in); `close` kills that group."""

    def __init__(self, root, environment):
        units = f"{root}/config/systemd/user"
        os.makedirs(units, exist_ok=True)
        for name, text in MANAGED_UNITS.items():
            with open(f"{units}/{name}", "w") as unit:
                unit.write(text.format(root=root))
        base = "/sys/fs/cgroup"
        hierarchies = [base] if os.path.exists(f"{base}/cgroup.procs") else [
            h for h in [f"{base}/systemd", f"{base}/unified"] if os.path.exists(f"{h}/cgroup.procs")]
        # One name in every hierarchy: the manager mirrors its unified group's path into systemd's v1 one.
        group = f"waypost-bench-{uuid.uuid4()}"
        self.groups = [f"{h}/{group}" for h in hierarchies]
        generators = "/usr/lib/systemd/user-environment-generators"
        script = (f'set -e; for g in {" ".join(self.groups)}; do mkdir "$g"; echo $$ > "$g/cgroup.procs"; done; '
                  "exec unshare --mount --propagation private /bin/sh -c 'set -e; mkdir -p /run/systemd; "
                  "mount -t tmpfs tmpfs /run/systemd; mkdir /run/systemd/system; "
                  f"if [ -d {generators} ]; then mount -t tmpfs tmpfs {generators}; fi; "
                  "exec /usr/lib/systemd/systemd --user --unit=lab.target'")
        self.environment = dict(environment, DBUS_SESSION_BUS_ADDRESS=f"unix:path={root}/runtime/bus")
        self.manager = subprocess.Popen(["/bin/sh", "-c", script], env=self.environment,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Ready when the manager is on its bus (the first connection starts the bus), as a session
        # is once logged in.
        deadline = time.monotonic() + DEADLINE
        while True:
            asked = subprocess.run(["/usr/bin/gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                                    "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner",
                                    "org.freedesktop.systemd1"], env=self.environment, capture_output=True, text=True)
            if "true" in asked.stdout:
                return
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"the user manager is not on its bus: {asked.stderr}")
            time.sleep(0.01)

    def close(self):
        # Round after round (one may fork meanwhile), each waiting on pidfds until its processes exited.
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            pids = set()
            for group in self.groups:
                for directory, _, _ in os.walk(group):
                    with open(f"{directory}/cgroup.procs") as procs:
                        pids.update(int(line) for line in procs if line.strip())
            if not pids:
                break
            exits = []
            for pid in pids:
                try:
                    exits.append(os.pidfd_open(pid))
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            waiting = list(exits)
            while waiting and time.monotonic() < deadline:
                ready = select.select(waiting, [], [], max(0, deadline - time.monotonic()))[0]
                waiting = [fd for fd in waiting if fd not in ready]
            for fd in exits:
                os.close(fd)
        self.manager.wait()
        for group in self.groups:
            for directory, _, _ in sorted(os.walk(group), key=lambda entry: -len(entry[0])):
                os.rmdir(directory)


def open_link(session, reader, uri):
    """Seconds from starting `gio open URI` to the handler's line naming it on the FIFO."""
    started = time.monotonic()
    opener = subprocess.Popen(["/usr/bin/gio", "open", uri], env=session.environment,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = started + DEADLINE
    buffered = b""
    registered = None
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([reader], [], [], remaining)[0]:
            opener.kill()
            raise RuntimeError(f"{uri} not delivered in {DEADLINE} s: gio says {opener.communicate()[1]!r}")
        buffered += os.read(reader, 65536)
        if registered is None and b'"ready"' in buffered:
            registered = time.monotonic() - started
        if uri.encode() in buffered:
            delivered = time.monotonic()
            break
    if opener.wait() != 0:
        raise RuntimeError(f"gio open {uri} failed: {opener.stderr.read()!r}")
    if TRACE and registered is not None:
        print(f"{uri}: gio open started at monotonic {started * 1e6:.0f} µs; the app registered at {registered * 1e3:.1f} ms, delivered at {(delivered - started) * 1e3:.1f} ms", file=sys.stderr)
    return delivered - started


def summary(values):
    ordered = sorted(values)
    decile = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return statistics.median(ordered), decile(0.1), decile(0.9)


def main():
    if not os.access(WAYPOST, os.X_OK):
        sys.exit(f"no waypost binary at {WAYPOST}: run make release")
    top = tempfile.mkdtemp(prefix="waypost-cold-bench-")
    desktops = [("one participating app", 0, 0), ("plus 150 other apps", 150, 0), ("plus 300 participating apps", 0, 300)]
    if SYSTEMD:
        desktops.append((MANAGED, 0, 0))
    paths = ["waypost", "direct"] + (["before"] if BEFORE else [])
    sessions = {}
    for name, others, participating in desktops:
        for binary in [WAYPOST] + ([os.path.realpath(BEFORE)] if BEFORE else []):
            root = f"{top}/{len(sessions)}"
            os.makedirs(root)
            sessions[(name, binary == WAYPOST)] = (root, *make_desktop(root, others, participating, binary))
    cold = {(name, path): [] for name, *_ in desktops for path in paths}
    warm = {key: [] for key in cold}
    sample = 0
    try:
        for round in range(ROUNDS):
            order = list(cold)
            random.shuffle(order)
            for name, path in order:
                root, environment, fifo = sessions[(name, path != "before")]
                reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
                keeper = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # no EOF between the apps' writes
                session = (ManagedSession if name == MANAGED else Session)(root, environment)
                try:
                    scheme = "benchdirect" if path == "direct" else "benchshop"
                    sample += 1
                    cold[(name, path)].append(open_link(session, reader, f"{scheme}:cold/{sample}"))
                    for n in range(WARM):
                        warm[(name, path)].append(open_link(session, reader, f"{scheme}:warm/{sample}/{n}"))
                finally:
                    session.close()
                    os.close(reader)
                    os.close(keeper)
            print(f"round {round + 1}/{ROUNDS}", file=sys.stderr, flush=True)
    finally:
        if not TRACE:
            shutil.rmtree(top, ignore_errors=True)
    print(f"bench-cold: {ROUNDS} rounds, {WAYPOST}" + (f", before: {BEFORE}" if BEFORE else ""))
    print("| desktop | through Waypost, cold (p10-p90) | straight to the app (p10-p90) | ratio | warm ratio |")
    print("|---|---|---|---|---|")
    for name, *_ in desktops:
        through, direct = summary(cold[(name, "waypost")]), summary(cold[(name, "direct")])
        pairs = sorted(w / d for w, d in zip(cold[(name, "waypost")], cold[(name, "direct")]))
        warmed = [statistics.median(warm[(name, path)] or [float("nan")]) for path in ["waypost", "direct"]]
        print(f"| {name} | {through[0] * 1e3:.1f} ms ({through[1] * 1e3:.1f}-{through[2] * 1e3:.1f}) "
              f"| {direct[0] * 1e3:.1f} ms ({direct[1] * 1e3:.1f}-{direct[2] * 1e3:.1f}) "
              f"| **{through[0] / direct[0]:.2f}×** (rounds {summary(pairs)[1]:.2f}-{summary(pairs)[2]:.2f}) "
              f"| {warmed[0] / warmed[1]:.2f}× ({warmed[0] * 1e3:.1f} / {warmed[1] * 1e3:.1f} ms) |")
    if BEFORE:
        print("\n| desktop | before, cold (p10-p90) | its ratio to the floor | after / before |")
        print("|---|---|---|---|")
        for name, *_ in desktops:
            before, through, direct = (summary(cold[(name, path)]) for path in ["before", "waypost", "direct"])
            print(f"| {name} | {before[0] * 1e3:.1f} ms ({before[1] * 1e3:.1f}-{before[2] * 1e3:.1f}) "
                  f"| {before[0] / direct[0]:.2f}× | {through[0] / before[0]:.2f}× |")


if __name__ == "__main__":
    main()
