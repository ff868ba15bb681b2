#!/usr/bin/env bash
# Runs `waypost explain` over every example scenario and prints where each event goes, and why.
# Usage: Examples/demo.sh PATH-TO-WAYPOST
set -euo pipefail
bin=${1:?usage: $0 PATH-TO-WAYPOST}
[ -x "$bin" ] || { echo "demo: $bin is not an executable" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$(dirname "$0")"
for scenario in *.json; do
  printf '%s\t%s\n' "$scenario" "$("$bin" explain --scenario "$scenario")"
done | python3 -c '
import json, sys, textwrap
rows = []
for line in sys.stdin:
    name, decision = line.rstrip("\n").split("\t", 1)
    event = json.load(open(name))["event"]
    link = event.get("url") or (event["activity"].get("targetContentIdentifier") or event["activity"].get("webpageURL") or "")
    if "activity" in event: link = "activity " + link
    d = json.loads(decision)
    where = {"deliver": "open scene " + d.get("scene", ""), "create": "new " + d.get("declaration", ""), "unhandled": "-"}[d["action"]]
    rows.append((name[:-5], link, where, d["rule"], d["reason"]))
widths = [max(len(r[i]) for r in rows + [("scenario", "link", "destination", "rule", "")]) for i in range(4)]
head = ("scenario", "link", "destination", "rule", "reason")
print("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  reason")
print("  ".join("-" * w for w in widths) + "  ------")
indent = sum(widths) + 8
for r in rows:
    lines = textwrap.wrap(r[4], max(40, 150 - indent))
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + lines[0])
    for more in lines[1:]: print(" " * indent + more)
'
