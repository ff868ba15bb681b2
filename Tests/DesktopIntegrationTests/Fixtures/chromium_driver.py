#!/usr/bin/python3
"""Drives a real Chromium for the browser extension's end-to-end tests, through the DevTools protocol
over --remote-debugging-pipe (no extra Python package): starts Chromium on the test's display
(TestSupport's VirtualScreen) with the given profile directory, a loopback web server for test
pages, loads the unpacked extension, then runs the steps of a JSON scenario and prints one JSON line
per step. Every wait waits for an event or a state
(never a fixed sleep) and has a deadline, after which the step reports an error.

usage: chromium_driver.py SCENARIO.json
scenario: {"display": ":N", "extension": DIR, "profile": DIR, "pages": {name: html}, "steps": [{"do": ...}, ...]};
without "extension", none is loaded; "external_schemes": [scheme, ...] are links the test pages may open outside the browser
without Chromium asking first (as the user's "Always allow" for the pages' origin does).
pages are served at http://localhost:PORT/NAME; "{port}" in a page or step is replaced by PORT.
"""
import http.server
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time

DEADLINE = 30


class Pages(http.server.BaseHTTPRequestHandler):
    pages = {}

    def do_GET(self):
        body = self.pages.get(self.path.lstrip("/"))
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write((body or "not found").encode())

    def log_message(self, *args):
        pass


class DevTools:
    def __init__(self, write, read):
        self.write, self.read = write, read
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.read, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def pump(self, timeout):
        """Takes in the events Chromium sends within `timeout` seconds (at least the next one, if any)."""
        if select.select([self.read], [], [], timeout)[0] or b"\0" in self.buffer:
            self.events.append(self.receive())

    def wait_event(self, accept, what):
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for index, event in enumerate(self.events):
                if accept(event):
                    del self.events[index]
                    return event
            self.pump(deadline - time.monotonic())
        raise RuntimeError(f"timed out waiting for {what}")

    def poll(self, check, what):
        """Checks a state each time Chromium says something, and at least every 50 ms."""
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            value = check()
            if value is not None:
                return value
            self.pump(0.05)
        raise RuntimeError(f"timed out waiting until {what}")


def main():
    scenario = json.load(open(sys.argv[1]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    port = server.server_address[1]
    Pages.pages = {name: html.replace("{port}", str(port)) for name, html in scenario["pages"].items()}
    threading.Thread(target=server.serve_forever, daemon=True).start()

    # The test's own screen: the tests start every X server the same way (TestSupport).
    drive(scenario, port, scenario["display"].lstrip(":"))


def drive(scenario, port, display):
    to_chromium_read, to_chromium_write = os.pipe()
    from_chromium_read, from_chromium_write = os.pipe()

    def pipes():
        os.dup2(to_chromium_read, 3)
        os.dup2(from_chromium_write, 4)

    environment = dict(os.environ, DISPLAY=":" + display)
    if scenario.get("external_schemes"):
        # What Chromium keeps when the user ticks "Always allow localhost to open links of this type".
        os.makedirs(os.path.join(scenario["profile"], "Default"), exist_ok=True)
        allowed = {f"http://localhost:{port}": {scheme: True for scheme in scenario["external_schemes"]}}
        with open(os.path.join(scenario["profile"], "Default", "Preferences"), "w") as preferences:
            json.dump({"protocol_handler": {"allowed_origin_protocol_pairs": allowed}}, preferences)
    chromium = subprocess.Popen(
        ["/usr/bin/chromium", "--no-sandbox", "--remote-debugging-pipe", "--enable-unsafe-extension-debugging",
         f"--user-data-dir={scenario['profile']}", "--no-first-run", "--no-default-browser-check", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--password-store=basic",
         "--window-position=0,0", "--window-size=1200,760", "about:blank"],
        pass_fds=(3, 4), preexec_fn=pipes, env=environment,
        stderr=open(scenario.get("log", os.devnull), "a"))
    os.close(to_chromium_read)
    os.close(from_chromium_write)
    tools = DevTools(to_chromium_write, from_chromium_read)
    try:
        run(tools, scenario, port)
    finally:
        chromium.kill()
        chromium.wait()


def run(tools, scenario, port):
    extension = None
    if scenario.get("extension"):
        extension = tools.call("Extensions.loadUnpacked", {"path": scenario["extension"]})["id"]
        print(json.dumps({"do": "load-extension", "id": extension}), flush=True)

    targets = tools.call("Target.getTargets")["targetInfos"]
    page = next(t for t in targets if t["type"] == "page")
    session = tools.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
    tools.call("Page.enable", session=session)
    tools.call("Network.enable", session=session)
    tools.call("Runtime.enable", session=session)
    popup = {}

    def extension_session():
        # The extension's popup page, opened once in a background tab: it reaches chrome.storage and
        # the background script as the toolbar popup does.
        if "session" not in popup:
            url = f"chrome-extension://{extension}/popup.html"
            target = tools.call("Target.createTarget", {"url": url, "background": True})["targetId"]
            popup["session"] = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            tools.poll(lambda: True if evaluate("document.readyState === 'complete' && typeof chrome.storage === 'object'", popup["session"]) else None,
                       "the extension's page loaded")
        return popup["session"]

    def evaluate(expression, session):
        result = tools.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def documents():
        # Every top-level document request seen so far, in order.
        found = [e["params"]["request"]["url"] for e in tools.events
                 if e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == session and e["params"].get("type") == "Document"]
        return found

    navigations = []

    def collect():
        navigations.extend(documents())
        tools.events = [e for e in tools.events if not (e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == session)]

    for step in scenario["steps"]:
        step = json.loads(json.dumps(step).replace("{port}", str(port)))
        action = step["do"]
        result = {"do": action}
        try:
            if action == "navigate":
                navigated = tools.call("Page.navigate", {"url": step["url"]}, session=session)
                if navigated.get("errorText"):
                    raise RuntimeError(f"{step['url']}: {navigated['errorText']}")
                ready = f"document.readyState === 'complete' && location.href === {json.dumps(step['url'])}"
                tools.poll(lambda: True if evaluate(ready, session) else None, f"{step['url']} loaded")
                collect()
                navigations.clear()
                result["url"] = evaluate("location.href", session)
            elif action == "wait-storage":
                # Until the extension's copy of a list holds (or lacks) a domain.
                key, domain, present = step["key"], step["domain"], step.get("present", True)
                expression = f"chrome.storage.local.get('{key}').then(v => (v['{key}'] || []).includes({json.dumps(domain)}))"
                tools.poll(lambda: True if evaluate(expression, extension_session()) == present else None, f"{key} {'holds' if present else 'lacks'} {domain}")
            elif action == "click":
                # Measured after the page's next two frames: a trusted click sent before the page has
                # painted since it loaded can miss its hit test and be lost (seen once in CI).
                box = evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {"
                               f" const r = document.querySelector({json.dumps(step['selector'])}).getBoundingClientRect();"
                               " done([r.left + r.width / 2, r.top + r.height / 2]); })))", session)
                for kind in ["mouseMoved", "mousePressed", "mouseReleased"]:
                    tools.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left" if kind != "mouseMoved" else "none",
                                                            "buttons": 1 if kind == "mousePressed" else 0, "clickCount": 1}, session=session)
            elif action == "script-click":
                evaluate(f"document.querySelector({json.dumps(step['selector'])}).click()", session)
            elif action == "wait-navigation":
                def navigated():
                    collect()
                    return True if step["url"] in navigations else None
                tools.poll(navigated, f"the tab navigates to {step['url']}")
            elif action == "wait-file":
                def holds():
                    try:
                        return True if step["contains"] in open(step["path"]).read() else None
                    except FileNotFoundError:
                        return None
                tools.poll(holds, f"{step['path']} holds {step['contains']}")
            elif action == "tab":
                collect()
                result["url"] = evaluate("location.href", session)
                result["navigations"] = list(navigations)
            elif action == "run":
                done = subprocess.run(step["argv"], capture_output=True, text=True, timeout=DEADLINE)
                result.update(status=done.returncode, output=done.stdout, errors=done.stderr)
            elif action == "run-until":
                # A command run again until its output holds a text (the daemon's word that it changed).
                def said():
                    done = subprocess.run(step["argv"], capture_output=True, text=True, timeout=DEADLINE)
                    return True if step["contains"] in done.stdout else None
                tools.poll(said, f"{' '.join(step['argv'])} says {step['contains']}")
            elif action == "eval-extension":
                result["value"] = evaluate(step["expression"], extension_session())
            else:
                raise RuntimeError(f"unknown step {action}")
        except Exception as error:  # reported to the test, which fails with it
            result["error"] = str(error)
            try:
                collect()
                result["tab"] = evaluate("location.href", session)
                result["navigations"] = list(navigations)
            except Exception:
                pass
        print(json.dumps(result), flush=True)
        if "error" in result:
            break


if __name__ == "__main__":
    main()
