#!/usr/bin/python3
"""bench-browser: the browser extension in a real Chromium (Benchmarks/README.md).

1. A click on a link an app owns → the app acknowledged (its OpenURL handler ran), beside `gio open`
   of the same link to the same running app (through the daemon, as after `waypost install --web`),
   interleaved in one run: medians and their ratio (target ≤ 1.2×).
2. A click on a link no app owns → the browser starts the navigation (the document request), in a
   Chromium with the extension and one without, interleaved: medians and their ratio (target: no
   measurable difference).

Everything runs in a throwaway session: private dbus-daemon, HOME and XDG directories, Xvfb. The app
is Tests/Apps/sample_app.py, whose event log is a FIFO here, so that its acknowledgement is seen the
moment it writes it. WAYPOST names the waypost binary (the release build).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import http.server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests/DesktopIntegrationTests/Fixtures")
sys.path.insert(0, FIXTURES)
from chromium_driver import DevTools, Pages  # noqa: E402
from lab_bus import lab_bus_config  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "40"))
WAYPOST = os.path.realpath(os.environ.get("WAYPOST", os.path.join(ROOT, ".build/release/waypost")))
PYTHON = "/usr/bin/python3"
SHOP = "org.example.Shop"


def start_session(root):
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": f"{root}/home", "XDG_DATA_HOME": f"{root}/data",
                   "XDG_CONFIG_HOME": f"{root}/config", "XDG_CACHE_HOME": f"{root}/cache", "XDG_RUNTIME_DIR": f"{root}/runtime",
                   "XDG_DATA_DIRS": "/usr/share", "XDG_CONFIG_DIRS": f"{root}/config", "GIO_USE_VFS": "local"}
    for directory in ["home", "data/applications", "data/waypost/associations", "config", "runtime", "logs"]:
        os.makedirs(f"{root}/{directory}", exist_ok=True)
    os.chmod(f"{root}/runtime", 0o700)
    bus = subprocess.Popen(["/usr/bin/dbus-daemon", f"--config-file={lab_bus_config(root)}", "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, env=environment, text=True)
    environment["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
    return bus, environment


def install(root, environment, fifo):
    config = {"app_id": SHOP, "log": fifo, "behaviour": {}, "declarations": [["main", {"kind": "window-group"}]],
              "scenes": [{"id": "products", "declaration": "main", "modifiers": [[[], ["*"]]]}]}
    json.dump(config, open(f"{root}/shop.json", "w"))
    with open(f"{root}/data/applications/{SHOP}.desktop", "w") as entry:
        entry.write(f"[Desktop Entry]\nType=Application\nName=Shop\nExec={PYTHON} {ROOT}/Tests/Apps/sample_app.py {root}/shop.json\n"
                    "X-Waypost=true\nX-Waypost-Associated-Domains=shop.example;\n")
    with open(f"{root}/data/applications/org.example.Browser.desktop", "w") as entry:
        entry.write("[Desktop Entry]\nType=Application\nName=Browser\nExec=/bin/true %u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;\n")
    with open(f"{root}/data/waypost/associations/shop.example.json", "w") as association:
        association.write('{"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "/product/*"}]}]}}')
    with open(f"{root}/config/mimeapps.list", "w") as defaults:
        defaults.write("[Default Applications]\nx-scheme-handler/https=org.example.Browser.desktop;\n")
    subprocess.run(["/usr/bin/update-desktop-database", f"{root}/data/applications"], env=environment, check=True)
    subprocess.run([WAYPOST, "install", "--web", "--browser"], env=environment, check=True, stdout=subprocess.DEVNULL)


def chromium(root, environment, display, name, extension):
    to_read, to_write = os.pipe()
    from_read, from_write = os.pipe()

    def pipes():
        os.dup2(to_read, 3)
        os.dup2(from_write, 4)
    profile = f"{root}/config/chromium" if extension else f"{root}/{name}-profile"
    process = subprocess.Popen(
        ["/usr/bin/chromium", "--no-sandbox", "--remote-debugging-pipe", "--enable-unsafe-extension-debugging",
         f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--password-store=basic",
         # Side by side, never overlapping: a window opening over another can lose the other's clicks.
         f"--window-position={0 if extension else 640},0", "--window-size=620,3000", "about:blank"],
        pass_fds=(3, 4), preexec_fn=pipes, env=dict(environment, DISPLAY=":" + display), stderr=open(f"{root}/logs/{name}.log", "w"))
    os.close(to_read)
    os.close(from_write)
    tools = DevTools(to_write, from_read)
    if extension:
        tools.call("Extensions.loadUnpacked", {"path": f"{root}/data/waypost/browser-extension/chromium"})
    page = next(t for t in tools.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
    session = tools.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
    tools.call("Page.enable", session=session)
    tools.call("Network.enable", session=session)
    return process, tools, session


def evaluate(tools, session, expression):
    return tools.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session=session)["result"].get("value")


def load(tools, session, url):
    tools.call("Page.navigate", {"url": url}, session=session)
    tools.poll(lambda: True if evaluate(tools, session, f"document.readyState === 'complete' && location.href === {json.dumps(url)}") else None, url)
    tools.events.clear()


def click(tools, session, selector):
    x, y = evaluate(tools, session, f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); return [r.left + 5, r.top + r.height / 2]; }})()")
    tools.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, session=session)
    started = time.perf_counter()
    for kind in ["mousePressed", "mouseReleased"]:
        tools.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "buttons": 1 if kind == "mousePressed" else 0, "clickCount": 1}, session=session)
    return started


def main():
    root = tempfile.mkdtemp(prefix="waypost-browser-bench-")
    processes = []
    try:
        bus, environment = start_session(root)
        processes.append(bus)
        fifo = f"{root}/logs/shop.events"
        os.mkfifo(fifo)
        events = os.fdopen(os.open(fifo, os.O_RDWR), "r")  # read-write: never an end of file between writes
        install(root, environment, fifo)
        app = subprocess.Popen([PYTHON, f"{ROOT}/Tests/Apps/sample_app.py", f"{root}/shop.json"], env=environment, stdout=subprocess.PIPE, text=True)
        processes.append(app)
        assert app.stdout.readline().strip() == "ready"
        events.readline()  # its "ready" record

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
        port = server.server_address[1]
        links = "".join(f'<p><a id="o{i}" href="https://shop.example/product/{i}">owned {i}</a></p>' for i in range(ROUNDS))
        Pages.pages = {"page.html": f'<!DOCTYPE html><body style="font-size: 20px"><p><a id="unowned" href="http://127.0.0.1:{port}/other.html">unowned</a></p>{links}',
                       "other.html": "<title>other</title>"}
        threading.Thread(target=server.serve_forever, daemon=True).start()

        display_read, display_write = os.pipe()
        xvfb = subprocess.Popen(["/usr/bin/Xvfb", "-displayfd", str(display_write), "-screen", "0", "1280x4000x24", "-nolisten", "tcp"],
                                pass_fds=(display_write,), stderr=subprocess.DEVNULL)
        processes.append(xvfb)
        os.close(display_write)
        display = b""
        while not display.endswith(b"\n"):
            display += os.read(display_read, 64)
        display = display.decode().strip()

        with_process, with_tools, with_session = chromium(root, environment, display, "with", extension=True)
        processes.append(with_process)
        page = f"http://localhost:{port}/page.html"
        # The extension's copy of the owned domains, then the page it was loaded for.
        load(with_tools, with_session, page)
        extension_page = with_tools.call("Target.createTarget", {"url": "chrome-extension://dlcbkgibophkfedgdgmpjniaejihejlf/popup.html", "background": True})["targetId"]
        popup = with_tools.call("Target.attachToTarget", {"targetId": extension_page, "flatten": True})["sessionId"]
        with_tools.poll(lambda: True if evaluate(with_tools, popup, "typeof chrome.storage === 'object' && chrome.storage.local.get('owned').then(v => (v.owned || []).includes('shop.example'))") else None, "owned domains")
        load(with_tools, with_session, page)

        def acknowledged(url):
            while True:
                record = json.loads(events.readline())
                if record.get("uri") == url:
                    return time.perf_counter()

        clicks, opens = [], []
        for i in range(ROUNDS):
            url = f"https://shop.example/product/{i}"
            started = click(with_tools, with_session, f"#o{i}")
            clicks.append(acknowledged(url) - started)
            gio_url = f"https://shop.example/product/gio-{i}"
            started = time.perf_counter()
            subprocess.Popen(["/usr/bin/gio", "open", gio_url], env=environment)
            opens.append(acknowledged(gio_url) - started)

        def navigation_start(tools, session, url):
            tools.wait_event(lambda e: e.get("method") == "Network.requestWillBeSent" and e["params"].get("type") == "Document"
                                     and e["params"]["request"]["url"] == url, url)
            return time.perf_counter()

        without_process, without_tools, without_session = chromium(root, environment, display, "without", extension=False)
        processes.append(without_process)
        other = f"http://127.0.0.1:{port}/other.html"
        unowned = {"with": [], "without": []}
        for i in range(ROUNDS):
            pair = [("with", with_tools, with_session), ("without", without_tools, without_session)]
            for name, tools, session in (pair if i % 2 == 0 else reversed(pair)):  # neither always first
                load(tools, session, page)
                started = click(tools, session, "#unowned")
                unowned[name].append(navigation_start(tools, session, other) - started)

        def line(label, values):
            return f"{label:58s} median {statistics.median(values) * 1000:7.2f} ms  (p10 {sorted(values)[len(values) // 10] * 1000:.2f}, p90 {sorted(values)[len(values) * 9 // 10] * 1000:.2f})"
        print(f"bench-browser: Chromium {subprocess.run(['/usr/bin/chromium', '--version'], capture_output=True, text=True).stdout.split()[1]}, {ROUNDS} rounds, interleaved")
        print(line("click on an owned link → app acknowledged", clicks))
        print(line("gio open of the same link → app acknowledged", opens))
        print(f"  ratio click / gio open: {statistics.median(clicks) / statistics.median(opens):.2f}× (target ≤ 1.2×)")
        print(line("click on an unowned link → navigation starts, extension", unowned["with"]))
        print(line("the same, without the extension", unowned["without"]))
        print(f"  ratio with / without: {statistics.median(unowned['with']) / statistics.median(unowned['without']):.2f}×")
    finally:
        for process in reversed(processes):
            process.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
