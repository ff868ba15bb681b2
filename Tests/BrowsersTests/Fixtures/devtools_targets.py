#!/usr/bin/python3
"""Prints Chromium's targets as JSON ([{"url", "type", "browserContextId"}, ...]), asked with
Target.getTargets over the DevTools WebSocket of the user data directory's DevToolsActivePort
(a minimal WebSocket client: no extra Python package).
usage: devtools_targets.py USER_DATA_DIR"""
import base64, json, os, socket, struct, sys

def main():
    port, path = open(os.path.join(sys.argv[1], "DevToolsActivePort")).read().split()[:2]
    sock = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(4096)
        if not chunk: raise RuntimeError("DevTools closed the connection during the handshake")
        buffer += chunk
    head, buffer = buffer.split(b"\r\n\r\n", 1)
    if b" 101 " not in head.split(b"\r\n")[0]: raise RuntimeError(head.decode(errors="replace"))

    def read(count):
        nonlocal buffer
        while len(buffer) < count:
            chunk = sock.recv(65536)
            if not chunk: raise RuntimeError("DevTools closed the connection")
            buffer += chunk
        data, buffer = buffer[:count], buffer[count:]
        return data

    def receive():
        message = b""
        while True:
            first, second = read(2)
            length = second & 0x7F
            if length == 126: length = struct.unpack(">H", read(2))[0]
            elif length == 127: length = struct.unpack(">Q", read(8))[0]
            payload = read(length)
            message += payload
            if first & 0x80: return json.loads(message)

    def send(message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(data) < 126: header += bytes([0x80 | len(data)])
        elif len(data) < 65536: header += bytes([0x80 | 126]) + struct.pack(">H", len(data))
        else: header += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
        sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    send({"id": 1, "method": "Target.getTargets", "params": {}})
    while True:
        reply = receive()
        if reply.get("id") == 1: break
    if "error" in reply: raise RuntimeError(reply["error"])
    print(json.dumps([{k: t.get(k) for k in ("url", "type", "browserContextId")} for t in reply["result"]["targetInfos"]]))

main()
