#!/usr/bin/python3
"""Two devices for handoff tests: two kdeconnectd in two network namespaces joined by a veth pair.

Usage: kdeconnect_pair.py A.json B.json
Each JSON file is one device's environment (its private session bus, XDG home, DISPLAY of its own
Xvfb) and a "name" for it. For each device this makes a network namespace (named after this
process's pid), starts Debian's kdeconnectd in it on that device's bus with `-platform xcb`, and
then pairs the two over D-Bus alone: A asks (requestPair), B accepts (acceptPairing), both until
`isTrusted`. B starts first, then A, whose announcement at start-up (broadcast to 255.255.255.255,
routed on the veth) B hears and answers: one link. Two announcing at once, or a second link (A also
given B's address in customDevices), can leave a 22.12 peer unpaired or without the other's object.

Prints one JSON line {"a": {"id", "name", "address", "netns"}, "b": {...}} once paired, then runs
until SIGTERM, and always removes its namespaces (its kdeconnectd die with it: PR_SET_PDEATHSIG).
Stale namespaces of a killed run (its pid gone) are removed first. Every wait is on a D-Bus signal or
property, bounded, but for kdeconnectd's first answer (see owned()).
"""
import json
import os
import signal
import subprocess
import sys
import ctypes

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

KDECONNECTD = "/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd"
PREFIX = "wph"
SUBNET = "10.231.{}."
PR_SET_PDEATHSIG = 1
# A bound for a loaded machine: alone, two devices pair in 5-10 s; under the whole suite, GSConnect
# (gjs) and kdeconnectd took over 30 s twice.
LIMIT_MS = 90000


def ip(*args, check=True):
    return subprocess.run(["/usr/sbin/ip", *args], check=check, capture_output=True, text=True)


def sweep_stale():
    for line in ip("netns", "list").stdout.splitlines():
        name = line.split()[0] if line.strip() else ""
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == PREFIX and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            ip("netns", "del", name, check=False)


class Device:
    def __init__(self, label, config, octet):
        self.label = label
        self.config = config
        self.env = dict(config["environment"])
        self.name = config["name"]
        self.netns = f"{PREFIX}-{os.getpid()}-{label}"
        self.address = SUBNET.format(os.getpid() % 250) + str(octet)
        self.process = None
        self.bus = None
        self.self_id = None

    def start(self):
        kdeconfig = os.path.join(self.env["XDG_CONFIG_HOME"], "kdeconnect")
        os.makedirs(kdeconfig, exist_ok=True)
        with open(os.path.join(kdeconfig, "config"), "a") as f:
            f.write(f"[General]\nname={self.name}\n")
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        log = open(self.config["log"], "ab")
        self.process = subprocess.Popen(
            ["/usr/sbin/ip", "netns", "exec", self.netns, KDECONNECTD, "-platform", "xcb"],
            env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL))
        self.bus = dbus.bus.BusConnection(self.env["DBUS_SESSION_BUS_ADDRESS"])

    def daemon(self):
        return dbus.Interface(self.bus.get_object("org.kde.kdeconnect", "/modules/kdeconnect"), "org.kde.kdeconnect.daemon")

    def device(self, device_id):
        return self.bus.get_object("org.kde.kdeconnect", f"/modules/kdeconnect/devices/{device_id}")


def main():
    DBusGMainLoop(set_as_default=True)
    sweep_stale()
    configs = [json.load(open(path)) for path in sys.argv[1:3]]
    a, b = Device("a", configs[0], 1), Device("b", configs[1], 2)
    loop = GLib.MainLoop()
    failure = []

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
            # Discovery replies and announcements go to 255.255.255.255: without a default route, this one.
            ip("-n", device.netns, "route", "add", "255.255.255.255/32", "dev", veth)

        state = {}

        # Both daemons up: wait for each to own its name (NameOwnerChanged), B first, then A. kdeconnectd
        # takes its name before it exports /modules/kdeconnect (no signal says when): asked again
        # every 20 ms until it answers, within the bound.
        def owned(device, then):
            def answers():
                try:
                    device.self_id = str(device.daemon().selfId())
                except dbus.DBusException as error:
                    if error.get_dbus_name() != "org.freedesktop.DBus.Error.UnknownObject":
                        fail(f"{device.name}'s kdeconnectd: {error}")
                        return False
                    return True
                then()
                return False

            def changed(name):
                if name:
                    watch.cancel()
                    if answers():
                        GLib.timeout_add(20, answers)
            watch = device.bus.watch_name_owner("org.kde.kdeconnect", changed)

        def b_ready():
            state["b_self"] = b.self_id
            a.start()
            owned(a, a_ready)

        def a_ready():
            state["a_self"] = a.self_id
            a.bus.add_signal_receiver(a_sees_device, "deviceAdded", "org.kde.kdeconnect.daemon", path="/modules/kdeconnect")
            a.bus.add_signal_receiver(lambda *_: check_a(), "deviceVisibilityChanged", "org.kde.kdeconnect.daemon", path="/modules/kdeconnect")
            b.bus.add_signal_receiver(b_pairing_requests, "pairingRequestsChanged", "org.kde.kdeconnect.daemon", path="/modules/kdeconnect")
            # A announced itself as it started (B was up, A's announcement alone is heard), and B connects
            # back: one link. Adding customDevices as well made a second, and 22.12 then loses the pairing.
            check_a()

        def a_sees_device(*_):
            check_a()

        def check_a():
            if state.get("requested"):
                return
            if state["b_self"] in [str(i) for i in a.daemon().devices(True, False)]:
                state["requested"] = True
                trust_watch(a, state["b_self"])
                a.device(state["b_self"]).requestPair(dbus_interface="org.kde.kdeconnect.device")

        def b_pairing_requests(*_):
            if state.get("accepted"):
                return
            device = b.device(state["a_self"])
            try:
                trust_watch(b, state["a_self"])
                device.acceptPairing(dbus_interface="org.kde.kdeconnect.device")
                state["accepted"] = True
            except dbus.DBusException:
                pass  # not A's request yet: the next pairingRequestsChanged

        trusted = set()

        def trust_watch(device, peer):
            obj = device.device(peer)

            def check(*_):
                if bool(obj.Get("org.kde.kdeconnect.device", "isTrusted", dbus_interface="org.freedesktop.DBus.Properties")):
                    trusted.add(device.label)
                    if trusted == {"a", "b"}:
                        loop.quit()
            device.bus.add_signal_receiver(check, "trustedChanged", "org.kde.kdeconnect.device", path=obj.object_path)
            device.bus.add_signal_receiver(check, "PropertiesChanged", "org.freedesktop.DBus.Properties", path=obj.object_path)
            check()

        b.start()
        owned(b, b_ready)
        GLib.timeout_add(LIMIT_MS, lambda: fail("not paired within the bound") or False)
        signal.signal(signal.SIGTERM, lambda *_: (cleanup(), os._exit(0)))
        loop.run()
        if failure:
            print(json.dumps({"error": failure[0]}), flush=True)
            return 1
        print(json.dumps({
            "a": {"id": state["a_self"], "name": a.name, "address": a.address, "netns": a.netns},
            "b": {"id": state["b_self"], "name": b.name, "address": b.address, "netns": b.netns},
        }), flush=True)
        # Until told to stop.
        signal.signal(signal.SIGTERM, lambda *_: (cleanup(), os._exit(0)))
        GLib.MainLoop().run()
    finally:
        cleanup()


if __name__ == "__main__":
    sys.exit(main())
