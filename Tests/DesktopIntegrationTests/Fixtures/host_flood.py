#!/usr/bin/env python3
"""Floods `waypost browser-host` with COUNT `owner` requests, written as fast as its pipe takes them,
reads every answer, and prints {"answered": N, "peak_kb": the host's VmHWM} as one JSON line.

Usage: host_flood.py COUNT WAYPOST ORIGIN
"""
import json
import struct
import subprocess
import sys
import threading

count, waypost, origin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
host = subprocess.Popen([waypost, "browser-host", origin], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def write():
    for number in range(1, count + 1):
        body = json.dumps({"id": number, "type": "owner", "url": f"https://shop.example/product/{number}"}).encode()
        host.stdin.write(struct.pack("=I", len(body)) + body)
    host.stdin.flush()


threading.Thread(target=write, daemon=True).start()
answered = 0
while answered < count:
    header = host.stdout.read(4)
    if len(header) < 4:
        break
    (length,) = struct.unpack("=I", header)
    message = json.loads(host.stdout.read(length))
    if message.get("type") == "owner" and "id" in message:
        answered += 1
with open(f"/proc/{host.pid}/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
host.stdin.close()
host.wait()
print(json.dumps({"answered": answered, "peak_kb": peak}), flush=True)
