#!/bin/sh
# Writes release/startup.order: the functions a `waypost open` runs, in the order its pages were first
# touched, so that the linker puts them side by side (lld's --symbol-ordering-file; `make release`).
# The kernel maps 64 KB of code around each page a process touches: code spread over the binary
# makes a `waypost open` map megabytes it never runs. Run `make startup-order` after large changes to
# the start of `waypost open` or its linking; a name no longer in the binary is ignored, and a
# function missing from the list still runs, only from a page of its own.
#
# Each round links the release binary with the list so far, runs `waypost open` against a daemon on
# a private bus under `perf record -e page-faults`, and adds the functions it faulted in that the
# list lacks (those the layout already kept together fault no more, so a few rounds find the rest).
# Needs perf (linux-perf), dbus-run-session (dbus-daemon) and gdbus (libglib2.0-bin).
set -eu
cd "$(dirname "$0")/.."
order=release/startup.order
rounds=${ROUNDS:-4}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
touch "$order"
cat > "$scratch/collect.sh" <<'SCRIPT'
#!/bin/sh
# On a private bus: the daemon, then one `waypost open` recorded; its faults' functions in the binary.
W=$1; data=$2
"$W" daemon >/dev/null 2>&1 &
daemon=$!
gdbus wait --session --timeout 20 io.waypost.Dispatcher
perf record -q -c 1 -e page-faults -o "$data" "$W" open waypost-startup-order://probe >/dev/null 2>&1 || true
kill "$daemon"
perf script -i "$data" -F ip,sym,dso 2>/dev/null | grep -F "($W)" | awk '{print $2}' | grep -v '^\[' || true
SCRIPT
chmod +x "$scratch/collect.sh"
for round in $(seq 1 "$rounds"); do
  rm -f .build/release/waypost
  make --no-print-directory release >/dev/null
  bin="$(readlink -f .build/release/waypost)"
  dbus-run-session -- "$scratch/collect.sh" "$bin" "$scratch/perf.data" > "$scratch/found" 2>/dev/null
  cat "$order" "$scratch/found" | awk '!seen[$0]++' > "$scratch/merged"
  echo "round $round: $(wc -l < "$scratch/found") functions faulted in, $(wc -l < "$scratch/merged") listed"
  mv "$scratch/merged" "$order"
done
rm -f .build/release/waypost
make --no-print-directory release >/dev/null
