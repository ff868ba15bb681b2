"""The search demo's calls and table: GNOME Shell's search provider calls made with gdbus, at the bus
name and object path of the provider file `waypost install` wrote, and where each picked result went
(what the sample app's window logged).

Usage: demo-search.py PROVIDER.ini SAMPLES.log ICECREAM.pid WAYPOST
"""
import configparser
import json
import os
import re
import signal
import subprocess
import sys
import time

provider_file, samples_file, icecream_pid_file, waypost = sys.argv[1:5]
provider = configparser.ConfigParser()
provider.read(provider_file)
bus_name = provider["Shell Search Provider"]["BusName"]
object_path = provider["Shell Search Provider"]["ObjectPath"]
interface = "org.gnome.Shell.SearchProvider2"


def call(method, *arguments):
    """One call as the shell makes it; gdbus prints the reply as a GVariant."""
    result = subprocess.run(
        ["gdbus", "call", "--session", "--dest", bus_name, "--object-path", object_path,
         "--method", f"{interface}.{method}", *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"demo: {method} failed: {result.stderr.strip()}")
    return result.stdout


def ids(reply):
    return re.findall(r"'([^']*)'", reply)


def metas(identifiers):
    reply = call("GetResultMetas", str(identifiers))
    by_id = {}
    for entry in re.findall(r"\{([^}]*)\}", reply):
        fields = dict(re.findall(r"'([\w-]+)': <'([^']*)'>", entry))
        by_id[fields.get("id")] = fields
    return [by_id.get(i, {}) for i in identifiers]


def received():
    return [json.loads(line) for line in open(samples_file) if line.strip() and '"continue-activity"' in line]


def activate(identifier, terms):
    before = len(received())
    call("ActivateResult", identifier, str(terms), str(int(time.time()) & 0xFFFFFFFF))
    # The window acknowledges on receipt and runs its handler after: wait for the handler's line.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        got = received()[before:]
        if got:
            return got[0]
        time.sleep(0.02)
    return None


rows = []


def search(terms, pick=None, note=""):
    found = ids(call("GetInitialResultSet", str(terms)))
    described = metas(found)
    shown = ", ".join(f"{m.get('name', '?')} ({m.get('description', '?')})" for m in described) or "nothing"
    rows.append(("GetInitialResultSet", " ".join(terms), shown, note))
    if pick is None:
        return found
    chosen = next((i for i, m in zip(found, described) if m.get("name") == pick), None)
    if chosen is None:
        sys.exit(f"demo: no result named {pick} for {terms}")
    got = activate(chosen, terms)
    size = f", size {got['sizeId']}" if got and "sizeId" in got else ""
    where = f"{got['app']} window {got['scene']} (pid {got['pid']}{size}) ✓" if got else "nobody ✗"
    rows.append(("ActivateResult", pick, where, ""))
    return found


print("Saved activities found through GNOME Shell's search provider interface, called as the shell calls it:")
print(f"  {bus_name} {object_path} ({interface}, from {os.path.basename(provider_file)})")
print()
search(["ice"], note="every size on show in a window; ranked by bm25, then recency")
narrowed = ids(call("GetSubsearchResultSet", str(ids(call("GetInitialResultSet", "['ice']"))), "['ice', 'lar']"))
rows.append(("GetSubsearchResultSet", "ice lar", ", ".join(m.get("name", "?") for m in metas(narrowed)), "the shell narrows as you type"))
search(["lar"], pick="Large Ice Cream", note="")
search(["ada"], pick="Ada Lovelace", note="Contacts publishes the selected contact")
# The shop is closed: its saved sizes are still found, and picking one starts it.
os.kill(int(open(icecream_pid_file).read()), signal.SIGKILL)
for _ in range(100):
    status = subprocess.run([waypost, "status"], capture_output=True, text=True).stdout
    if "io.waypost.example.IceCream" not in status:
        break
    time.sleep(0.05)
search(["small"], pick="Small Ice Cream", note="Ice Cream is not running: started, a new window")

width = [max(len(r[i]) for r in rows) for i in range(3)]
for call_name, terms, result, note in rows:
    line = f"  {call_name:<{width[0]}}  {terms:<{width[1]}}  {result:<{width[2]}}"
    print((line + (f"  — {note}" if note else "")).rstrip())
missing = [r for r in rows if r[0] == "ActivateResult" and "✓" not in r[2]]
sys.exit(1 if missing else 0)
