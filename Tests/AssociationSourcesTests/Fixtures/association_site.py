#!/usr/bin/env python3
"""A loopback HTTPS site for the association verifier's tests.

Usage: association_site.py DIRECTORY

Listens on 127.0.0.1:443 (inside the test's network namespace, see in_namespace.sh) with
DIRECTORY/server.crt and server.key, or, for a TLS server name listed in
DIRECTORY/certificates.json ({"name": ["cert", "key"]}), that name's own pair. What a request gets
depends on its Host: DIRECTORY/behaviours.json ({"host": "behaviour"}) is read on every request, so
a test can change a site between two fetches. Prints "ready" once it listens.

Behaviours: valid, valid-charset, other-app (files DIRECTORY/valid.json and other-app.json),
redirect (301), oversize (200 KiB with Content-Length), oversize-unannounced (the same, delimited
by closing), html (text/html), missing (404), unavailable (503), slow (answers after 60 s),
drop (closes the connection without an answer).
"""
import http.server
import json
import os
import ssl
import sys
import threading

DIRECTORY = sys.argv[1]
PATH = "/.well-known/apple-app-site-association"


def read(name):
    with open(os.path.join(DIRECTORY, name), "rb") as f:
        return f.read()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        sys.stderr.write("%s %s\n" % (self.headers.get("Host", "-"), format % args))

    def answer(self, status, body, content_type="application/json", headers=(), length=True):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0]
        behaviour = json.loads(read("behaviours.json")).get(host, "missing")
        if self.path != PATH:
            behaviour = "missing"
        oversize = b'{"applinks": {"details": []}, "padding": "' + b"x" * (200 * 1024) + b'"}'
        if behaviour == "valid":
            self.answer(200, read("valid.json"), headers=[("Cache-Control", "public, max-age=7200")])
        elif behaviour == "valid-charset":
            self.answer(200, read("valid.json"), content_type="application/json; charset=utf-8")
        elif behaviour == "other-app":
            self.answer(200, read("other-app.json"))
        elif behaviour == "redirect":
            self.answer(301, b"", content_type=None, headers=[("Location", "https://valid.example" + PATH)])
        elif behaviour == "oversize":
            self.answer(200, oversize)
        elif behaviour == "oversize-unannounced":
            self.answer(200, oversize, length=False)
        elif behaviour == "html":
            self.answer(200, b"<html><body>Welcome</body></html>", content_type="text/html; charset=utf-8")
        elif behaviour == "unavailable":
            self.answer(503, b"busy", content_type="text/plain")
        elif behaviour == "slow":
            NEVER.wait()  # stalls until the client gives up and the test ends the server
        elif behaviour == "drop":
            self.close_connection = True
        else:
            self.answer(404, b"<html><body>Not found</body></html>", content_type="text/html")


# Never set: a "slow" site never answers.
NEVER = threading.Event()


def main():
    default = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    default.load_cert_chain(os.path.join(DIRECTORY, "server.crt"), os.path.join(DIRECTORY, "server.key"))
    by_name = {}
    for name, (cert, key) in json.loads(read("certificates.json")).items():
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(DIRECTORY, cert), os.path.join(DIRECTORY, key))
        by_name[name] = context

    def pick(connection, server_name, _):
        if server_name in by_name:
            connection.context = by_name[server_name]

    default.sni_callback = pick
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 443), Handler)
    server.daemon_threads = True
    server.socket = default.wrap_socket(server.socket, server_side=True)
    print("ready", flush=True)
    server.serve_forever()


main()
