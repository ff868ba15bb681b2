"""A throwaway desktop session for the stress scripts: temporary XDG directories, a private
dbus-daemon, the release (or $WAYPOST) `waypost daemon`, and participating apps that are this
directory's `stress_app.py` run by python3 (their desktop entries name it, so the daemon's program
check passes). Never the user's bus or files."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import dbus

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from lab_bus import lab_bus_config  # noqa: E402
PYTHON = "/usr/bin/python3"


def waypost_binary():
    for candidate in [os.environ.get("WAYPOST"), os.path.join(ROOT, ".build/release/waypost"),
                      os.path.join(ROOT, ".build/debug/waypost")]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("no waypost binary: run `make release` or set WAYPOST")


def rss_kib(pid):
    """Resident set of a process, from /proc (VmRSS)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """User and system CPU time a process has used, from /proc (stat fields 14 and 15)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Session:
    def __init__(self, apps, delivery_timeout=5, activity_types=None):
        """apps: {app_id: scheme}; each becomes a participating entry running stress_app.py, listing
        the activity types activity_types ({app_id: [type]}) names for it."""
        self.root = tempfile.mkdtemp(prefix="waypost-stress-")
        self.children = []
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL")}
        for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
            path = os.path.join(self.root, name.lower())
            os.makedirs(path, mode=0o700)
            env[name] = path
        env["XDG_DATA_DIRS"] = "/usr/share"
        applications = os.path.join(env["XDG_DATA_HOME"], "applications")
        os.makedirs(applications)
        for app_id, scheme in apps.items():
            with open(os.path.join(applications, app_id + ".desktop"), "w") as f:
                types = "".join(t + ";" for t in (activity_types or {}).get(app_id, []))
                f.write("[Desktop Entry]\nType=Application\nName=%s\nExec=%s %s/stress_app.py %s\n"
                        "MimeType=x-scheme-handler/%s;\nX-Waypost=true\nX-Waypost-Activity-Types=%s\n"
                        % (app_id, PYTHON, HERE, app_id, scheme, types))
        subprocess.run(["update-desktop-database", applications], check=True)
        # The lab desktop's bus: only this session's services, none of the machine's.
        os.makedirs(os.path.join(self.root, "runtime"), mode=0o700)
        os.makedirs(os.path.join(env["XDG_DATA_HOME"], "dbus-1", "services"))
        bus = subprocess.Popen(["dbus-daemon", f"--config-file={lab_bus_config(self.root, env['XDG_DATA_HOME'])}", "--nofork",
                                "--print-address=1"], stdout=subprocess.PIPE, env=env, text=True)
        self.children.append(bus)
        self.bus_pid = bus.pid
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
        self.env = env
        os.environ.update(env)
        self.daemon = self.spawn([waypost_binary(), "daemon", "--delivery-timeout", str(delivery_timeout)])
        self.bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
        self.wait_for_name("io.waypost.Dispatcher")
        self.dispatcher = dbus.Interface(
            self.bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1")

    def spawn(self, argv, stderr=subprocess.DEVNULL):
        child = subprocess.Popen(argv, env=self.env, stdout=subprocess.PIPE, stderr=stderr, text=True)
        self.children.append(child)
        return child

    def start_app(self, app_id, *arguments, stderr=subprocess.DEVNULL):
        """Starts stress_app.py as APP_ID; returns once it says it registered and opened its scenes."""
        child = self.spawn([PYTHON, os.path.join(HERE, "stress_app.py"), app_id] + [str(a) for a in arguments], stderr)
        line = child.stdout.readline().strip()
        if line != "ready":
            sys.exit("%s did not start: %r" % (app_id, line))
        return child

    def wait_for_name(self, name, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.bus.name_has_owner(name):
                return
            time.sleep(0.02)
        sys.exit("%s never appeared on the bus" % name)

    def open(self, uri):
        return self.dispatcher.Open(uri, dbus.Dictionary({}, signature="sv"), timeout=60)

    def close(self):
        for child in reversed(self.children):
            child.kill()
            child.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]
