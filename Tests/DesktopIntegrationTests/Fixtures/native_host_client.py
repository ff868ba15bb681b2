#!/usr/bin/python3
"""Talks to a native-messaging host as a browser does (length-prefixed JSON on its stdin and stdout),
for the host's tests. usage: native_host_client.py ACTIONS.json PROGRAM ARGUMENT...
Actions: {"write": path, "text": text}; {"await-push": domain}: until the host pushes owned
domains holding it; {"send": object} or {"send-raw": text}: one message, then the host's next reply (pushes
of the owned domains, which carry no id, are skipped); {"send-length": N}: only a length header,
then the reply; {"stop-daemon"} / {"continue-daemon"}: SIGSTOP / SIGCONT the dispatcher (found
on the session bus). Prints one JSON line per reply, then {"exit": status}."""
import json
import os
import select
import signal
import struct
import subprocess
import sys

actions = json.load(open(sys.argv[1]))
host = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def reply():
    while True:
        header = host.stdout.read(4)
        if len(header) < 4:
            return {"closed": True}
        message = json.loads(host.stdout.read(struct.unpack("=I", header)[0]))
        if not (message.get("type") == "owned-domains" and "id" not in message):
            return message


def daemon_pid():
    import dbus
    bus = dbus.SessionBus()
    proxy = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
    return int(proxy.GetConnectionUnixProcessID("io.waypost.Dispatcher", dbus_interface="org.freedesktop.DBus"))


for action in actions:
    if "send" in action or "send-raw" in action:
        data = json.dumps(action["send"]).encode() if "send" in action else action["send-raw"].encode()
        host.stdin.write(struct.pack("=I", len(data)) + data)
        host.stdin.flush()
        print(json.dumps(reply()), flush=True)
    elif "send-length" in action:
        host.stdin.write(struct.pack("=I", action["send-length"]))
        host.stdin.flush()
        print(json.dumps(reply()), flush=True)
    elif "write" in action:
        os.makedirs(os.path.dirname(action["write"]), exist_ok=True)
        with open(action["write"], "w") as file:
            file.write(action["text"])
    elif "await-push" in action:
        # Until the host pushes owned domains holding this one (the host's pushes carry no id).
        while True:
            header = host.stdout.read(4)
            if len(header) < 4:
                print(json.dumps({"closed": True}), flush=True)
                break
            message = json.loads(host.stdout.read(struct.unpack("=I", header)[0]))
            if message.get("type") == "owned-domains" and "id" not in message and action["await-push"] in message.get("domains", []):
                print(json.dumps(message), flush=True)
                break
    elif "stop-daemon" in action:
        pid = daemon_pid()
        os.kill(pid, signal.SIGSTOP)
        # kill() returns before every thread has stopped: wait for the kernel's word (each thread in state T).
        def stopped():
            tasks = os.listdir(f"/proc/{pid}/task")
            return all(open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0] == "T" for t in tasks)
        while not stopped():
            select.select([], [], [], 0.01)
    elif "continue-daemon" in action:
        os.kill(daemon_pid(), signal.SIGCONT)
host.stdin.close()
print(json.dumps({"exit": host.wait()}), flush=True)
