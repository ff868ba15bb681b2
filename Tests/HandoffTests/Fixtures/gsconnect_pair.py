#!/usr/bin/python3
"""Two devices for handoff tests, one on GNOME's transport: GSConnect 54 (its service, standalone under
gjs) in one network namespace and kdeconnectd in another, joined by a veth pair.

Usage: gsconnect_pair.py A.json B.json
As kdeconnect_pair.py (whose namespaces, veth and kdeconnectd it reuses), but A runs GSConnect. A's
namespace has a default route: GSConnect announces itself only when GNetworkMonitor sees the network.
B's kdeconnectd starts first; GSConnect's announcement at start-up reaches it and it connects back
(pairing works that way round; the other, glib-networking rejects kdeconnectd's SNI): its "refresh"
action announces it again until B has connected. A asks to
pair (its device's `pair` action), B accepts (acceptPairing); paired when A's device says `Paired`
and B's `isTrusted`.

Prints one JSON line {"a": {"id", "name", "address", "netns"}, "b": {...}} once paired, then runs
until SIGTERM, and always removes its namespaces (gjs and kdeconnectd die with it).
"""
import ctypes
import json
import os
import signal
import subprocess
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kdeconnect_pair import Device, ip, sweep_stale, PREFIX, PR_SET_PDEATHSIG, LIMIT_MS  # noqa: E402

GSCONNECT = "/usr/share/gnome-shell/extensions/gsconnect@andyholmes.github.io/service/daemon.js"
GSCONNECT_NAME = "org.gnome.Shell.Extensions.GSConnect"
GSCONNECT_PATH = "/org/gnome/Shell/Extensions/GSConnect"
DEVICE_INTERFACE = "org.gnome.Shell.Extensions.GSConnect.Device"


class GSConnect(Device):
    """GSConnect's service on this device's bus, in its namespace, under gjs."""

    def start(self):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        log = open(self.config["log"], "ab")
        # Its settings in a key file of this device's (no dconf here), its name among them.
        settings = os.path.join(self.env["XDG_CONFIG_HOME"], "glib-2.0", "settings")
        os.makedirs(settings, exist_ok=True)
        with open(os.path.join(settings, "keyfile"), "w") as f:
            f.write(f"[org/gnome/shell/extensions/gsconnect]\nname='{self.name}'\n")
        env = dict(self.env, GSETTINGS_BACKEND="keyfile")
        self.process = subprocess.Popen(
            ["/usr/sbin/ip", "netns", "exec", self.netns, "/usr/bin/gjs", GSCONNECT],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL))
        self.bus = dbus.bus.BusConnection(self.env["DBUS_SESSION_BUS_ADDRESS"])

    def devices(self):
        manager = dbus.Interface(self.bus.get_object(GSCONNECT_NAME, GSCONNECT_PATH), "org.freedesktop.DBus.ObjectManager")
        return {str(path): interfaces[DEVICE_INTERFACE] for path, interfaces in manager.GetManagedObjects().items()
                if DEVICE_INTERFACE in interfaces}


def main():
    DBusGMainLoop(set_as_default=True)
    sweep_stale()
    configs = [json.load(open(path)) for path in sys.argv[1:3]]
    a, b = GSConnect("a", configs[0], 1), Device("b", configs[1], 2)
    loop = GLib.MainLoop()
    failure = []
    state = {}

    def fail(message):
        failure.append(message)
        loop.quit()

    def cleanup(*_):
        for device in (a, b):
            if device.process and device.process.poll() is None:
                device.process.kill()
                device.process.wait()
            ip("netns", "del", device.netns, check=False)

    try:
        ip("netns", "add", a.netns)
        ip("netns", "add", b.netns)
        veth_a, veth_b = f"{PREFIX}{os.getpid()}a", f"{PREFIX}{os.getpid()}b"
        ip("link", "add", veth_a, "netns", a.netns, "type", "veth", "peer", "name", veth_b, "netns", b.netns)
        for device, veth in ((a, veth_a), (b, veth_b)):
            ip("-n", device.netns, "link", "set", "lo", "up")
            ip("-n", device.netns, "addr", "add", device.address + "/24", "dev", veth)
            ip("-n", device.netns, "link", "set", veth, "up")
            ip("-n", device.netns, "route", "add", "255.255.255.255/32", "dev", veth)
        # GNetworkMonitor says "available" only with a default route.
        ip("-n", a.netns, "route", "add", "default", "dev", veth_a)

        def b_owned(name):
            if not name or "b_self" in state:
                return
            # kdeconnectd takes its name before it exports its daemon: asked every 20 ms until it answers.
            def answers():
                try:
                    state["b_self"] = str(b.daemon().selfId())
                except dbus.DBusException as error:
                    if error.get_dbus_name() != "org.freedesktop.DBus.Error.UnknownObject":
                        fail(f"B's kdeconnectd: {error}")
                        return False
                    return True
                b.bus.add_signal_receiver(b_pairing_requests, "pairingRequestsChanged", "org.kde.kdeconnect.daemon",
                                          path="/modules/kdeconnect")
                b.bus.add_signal_receiver(lambda *_: state.update(b_sees_a=True), "deviceAdded", "org.kde.kdeconnect.daemon",
                                          path="/modules/kdeconnect")
                a.start()
                a.bus.watch_name_owner(GSCONNECT_NAME, a_owned)
                return False
            if answers():
                GLib.timeout_add(20, answers)

        def a_owned(name):
            if not name or state.get("a_watching"):
                return
            state["a_watching"] = True
            a.bus.add_signal_receiver(lambda *_: check_a(), "InterfacesAdded", "org.freedesktop.DBus.ObjectManager", path=GSCONNECT_PATH)
            a.bus.add_signal_receiver(lambda *_, **__: check_a(), "PropertiesChanged", "org.freedesktop.DBus.Properties",
                                      bus_name=GSCONNECT_NAME, path_keyword="path")
            check_a()
            # GSConnect announces itself only when GNetworkMonitor's state changes (or its name does),
            # not when it starts with the network already there, and its "refresh" action does nothing
            # until its backends have started, which no signal tells. So "refresh" every second until
            # B's kdeconnectd has seen A (deviceAdded) or A sees B: seldom enough that no second
            # announcement reaches B while the first one's link is made (a second link can leave
            # kdeconnectd 22.12 unpaired), within the bound.
            def refresh():
                if state.get("a_path") or state.get("b_sees_a"):
                    return False
                try:
                    a.bus.get_object(GSCONNECT_NAME, GSCONNECT_PATH).Activate("refresh", dbus.Array([], signature="v"), dbus.Dictionary({}, signature="sv"), dbus_interface="org.gtk.Actions")
                except dbus.DBusException:
                    pass
                return True
            refresh()
            GLib.timeout_add(1000, refresh)

        def check_a():
            try:
                devices = a.devices()
            except dbus.DBusException:
                return  # not exported yet: the next InterfacesAdded
            for path, properties in devices.items():
                if str(properties.get("Id", "")).replace("-", "_") != state["b_self"].replace("-", "_"):
                    continue
                state["a_path"] = path
                if bool(properties.get("Paired", False)):
                    trusted.add("a")
                    done()
                elif bool(properties.get("Connected", False)) and not state.get("requested"):
                    state["requested"] = True
                    a.bus.get_object(GSCONNECT_NAME, path).Activate("pair", dbus.Array([], signature="v"), dbus.Dictionary({}, signature="sv"), dbus_interface="org.gtk.Actions")

        def b_pairing_requests(*_):
            if state.get("accepted"):
                return
            for peer in [str(i) for i in b.daemon().devices(False, False)]:
                try:
                    b.device(peer).acceptPairing(dbus_interface="org.kde.kdeconnect.device")
                except dbus.DBusException:
                    continue
                state["accepted"] = True
                state["a_seen_by_b"] = peer
                trust_watch(peer)

        trusted = set()

        def trust_watch(peer):
            obj = b.device(peer)

            def check(*_):
                if bool(obj.Get("org.kde.kdeconnect.device", "isTrusted", dbus_interface="org.freedesktop.DBus.Properties")):
                    trusted.add("b")
                    done()
            b.bus.add_signal_receiver(check, "trustedChanged", "org.kde.kdeconnect.device", path=obj.object_path)
            b.bus.add_signal_receiver(check, "PropertiesChanged", "org.freedesktop.DBus.Properties", path=obj.object_path)
            check()

        def done():
            if trusted == {"a", "b"}:
                loop.quit()

        b.start()
        b.bus.watch_name_owner("org.kde.kdeconnect", b_owned)
        GLib.timeout_add(LIMIT_MS, lambda: fail(f"not paired within the bound (reached: {sorted(state)}, trusted: {sorted(trusted)})") or False)
        signal.signal(signal.SIGTERM, lambda *_: (cleanup(), os._exit(0)))
        loop.run()
        if failure:
            print(json.dumps({"error": failure[0]}), flush=True)
            return 1
        a_id = str(a.devices()[state["a_path"]].get("Id", ""))
        print(json.dumps({
            # A's own id is what B's kdeconnectd knows it as; B's, what A's GSConnect knows.
            "a": {"id": state["a_seen_by_b"], "name": a.name, "address": a.address, "netns": a.netns},
            "b": {"id": state["b_self"], "name": b.name, "address": b.address, "netns": b.netns, "seen_by_a": a_id},
        }), flush=True)
        signal.signal(signal.SIGTERM, lambda *_: (cleanup(), os._exit(0)))
        GLib.MainLoop().run()
    finally:
        cleanup()


if __name__ == "__main__":
    sys.exit(main())
