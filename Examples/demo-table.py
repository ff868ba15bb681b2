"""Prints the live demo's table: one row per opener run, joined with the dispatcher's Routed report
(from `waypost monitor`) and with what the sample app's scene logged as received.

Usage: demo-table.py STEPS.tsv ROUTED.txt SAMPLES.log [BROWSER.log]
"""
import json
import re
import sys

steps_file, routed_file, samples_file = sys.argv[1:4]
browser_lines = [line.rstrip("\n") for line in open(sys.argv[4])] if len(sys.argv) > 4 else []
steps = [line.rstrip("\n").split("\t") for line in open(steps_file) if line.strip()]
routed = [line.rstrip("\n") for line in open(routed_file) if line.strip() and not line.startswith("watching")]
samples = [json.loads(line) for line in open(samples_file) if line.strip()]
received = [r for r in samples if r.get("event") != "ready"]

# `waypost monitor` lines: "EVENT → APP [scene ID|new DECL] [ACTION, RULE] N µs[, no token: …] (opened by
# OPENER)" or "EVENT ✗ ERROR: REASON (opened by OPENER)".
delivered = re.compile(r"^(\S+) → (\S+) (?:scene (\S+) |new (\S+) )?\[(\w+), ([\w-]+)\](?: (\d+) µs)?(?:, no token: [^(]*)?(?: \(opened by .*\))?$")
failed = re.compile(r"^(\S+) ✗ (\S+?):? (.*)$")


def take_received(app, scene, step_link):
    """The first not yet matched record of this scene receiving this link (or activity)."""
    for i, record in enumerate(received):
        if record.get("scene") != scene:
            continue
        if step_link.startswith("activity:"):
            ok = record.get("event") == "continue-activity"
        else:
            ok = record.get("url") == step_link
        if ok:
            del received[i]
            return True
    return False


rows = []
for index, step in enumerate(steps):
    via, link, status, micros, note = (step + [""] * 5)[:5]
    report = routed[index] if index < len(routed) else ""
    row = {"n": str(index + 1), "via": via, "link": link, "app": "-", "scene": "-", "rule": "-", "action": "-",
           "opener": f"{int(micros) / 1000:.0f} ms", "dispatcher": "-", "received": "✗", "note": note}
    if (m := delivered.match(report)):
        _, app, scene, declaration, action, rule, dispatcher_micros = m.groups()
        row.update(app=app.removeprefix("io.waypost.example."), scene=scene or ("new " + declaration if declaration else "-"),
                   rule=rule, action=action)
        if dispatcher_micros:
            row["dispatcher"] = f"{int(dispatcher_micros) / 1000:.1f} ms"
        if scene and take_received(app, scene, link):
            row["received"] = "✓"
        elif rule == "browser" and link in browser_lines:
            browser_lines.remove(link)
            row["received"] = "✓"
    elif (m := failed.match(report)):
        row.update(action="error", rule=m.group(2).removeprefix("io.waypost.Error."), note=m.group(3)[:90])
    if status != "0":
        row["note"] = f"{via} exited {status}; " + row["note"]
    rows.append(row)

columns = [("n", "#"), ("via", "opener"), ("link", "link"), ("app", "app"), ("scene", "scene"), ("rule", "rule"),
           ("action", "action"), ("opener", "opener"), ("dispatcher", "dispatcher"), ("received", "got it"),
           ("note", "")]
widths = {key: max(len(title), *(len(r[key]) for r in rows)) for key, title in columns}
print("  ".join(title.ljust(widths[key]) for key, title in columns).rstrip())
print("  ".join("-" * widths[key] for key, _ in columns[:-1]))
for r in rows:
    print("  ".join(r[key].ljust(widths[key]) for key, _ in columns).rstrip())
print()
print("opener: the opener process's wall time; dispatcher: from the dispatcher receiving the link to the"
      " app acknowledging it; got it: the scene logged the event ($WAYPOST_SAMPLE_LOG).")
