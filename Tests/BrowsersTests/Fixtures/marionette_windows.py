#!/usr/bin/python3
"""Prints, as JSON, the windows of a running Firefox: [{"private": bool, "urls": [...]}, ...], read over
Marionette (TCP, "LENGTH:JSON" frames; no extra Python package) in the chrome context, which needs
Firefox started with --marionette -remote-allow-system-access. Every read has a 30 s timeout.
usage: marionette_windows.py PORT"""
import json, socket, sys

def receive(sock, buffer):
    while b":" not in buffer:
        chunk = sock.recv(65536)
        if not chunk: raise RuntimeError("Marionette closed the connection")
        buffer += chunk
    length, rest = buffer.split(b":", 1)
    length = int(length)
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk: raise RuntimeError("Marionette closed the connection")
        rest += chunk
    return json.loads(rest[:length]), rest[length:]

def main():
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
    buffer = b""
    hello, buffer = receive(sock, buffer)
    next_id = [0]
    def call(name, params):
        nonlocal buffer
        next_id[0] += 1
        data = json.dumps([0, next_id[0], name, params]).encode()
        sock.sendall(str(len(data)).encode() + b":" + data)
        while True:
            reply, buffer = receive(sock, buffer)
            if reply[0] == 1 and reply[1] == next_id[0]:
                if reply[2]: raise RuntimeError(f"{name}: {reply[2]}")
                return reply[3]
    call("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"moz:accessibilityChecks": False}}})
    call("Marionette:SetContext", {"value": "chrome"})
    result = call("WebDriver:ExecuteScript", {"script": """
        const { PrivateBrowsingUtils } = ChromeUtils.importESModule("resource://gre/modules/PrivateBrowsingUtils.sys.mjs");
        return Array.from(Services.wm.getEnumerator("navigator:browser")).map(w => ({
            private: PrivateBrowsingUtils.isWindowPrivate(w),
            urls: w.gBrowser.browsers.map(b => b.currentURI.spec)}));
        """, "args": []})
    print(json.dumps(result["value"]))
    call("WebDriver:DeleteSession", {})

main()
