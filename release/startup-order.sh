#!/bin/bash
# Writes release/startup.order: the functions a `waypost open` runs, then those the daemon runs as it
# starts, takes an app's scenes and routes links to them, each in the order their pages were first
# touched, so that the linker puts them side by side (lld's --symbol-ordering-file; `make release`).
# The kernel maps 64 KB of code around each page a process touches: code spread over the binary
# makes a `waypost open` map megabytes it never runs, and the daemon keep them resident. Run `make
# startup-order` after large changes to the start of `waypost open`, the daemon's paths or their
# linking; a name no longer in the binary is ignored, and a function missing from the list still
# runs, only from a page of its own.
#
# Each round links the release binary with the list so far and, on a private bus, records page faults
# (`perf record -e page-faults`) of the daemon while Benchmarks' dispatch-bench app declares 1,000
# scenes and is sent 300 links, and of one `waypost open`; it adds the functions they faulted in that
# the list lacks (those the layout already kept together fault no more, so a few rounds find the rest).
# The daemon gets a throwaway HOME and XDG directories (Benchmarks/bus-waits.sh).
# Needs perf (linux-perf), dbus-run-session (dbus-daemon), gdbus (libglib2.0-bin) and
# update-desktop-database (desktop-file-utils).
set -eu
cd "$(dirname "$0")/.."
order=release/startup.order
rounds=${ROUNDS:-4}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
touch "$order"
(cd Benchmarks && swift build -c release --product dispatch-bench >/dev/null)
bench="$(cd Benchmarks && swift build -c release --show-bin-path)/dispatch-bench"
cat > "$scratch/collect.sh" <<'SCRIPT'
#!/bin/bash
# On a private bus: the daemon recorded while an app declares scenes and is sent links, then one
# `waypost open` recorded; prints the functions in the binary each faulted in, `open`'s first.
set -eu
W=$1; bench=$2; root=$3
. Benchmarks/bus-waits.sh
throwaway_desktop "$root" "$bench" >/dev/null
perf record -q -c 1 -e page-faults -o "$root/daemon.data" "$W" daemon >/dev/null 2>&1 &
recorder=$!
wait_for "the daemon taking its name" has_owner io.waypost.Dispatcher
"$bench" app "$DBUS_SESSION_BUS_ADDRESS" 0 1000 > "$root/app.out" 2>&1 &
app=$!
wait_for "the bench app declaring its scenes" grep -q ready "$root/app.out"
"$bench" opens "$DBUS_SESSION_BUS_ADDRESS" 300 >/dev/null
perf record -q -c 1 -e page-faults -o "$root/open.data" "$W" open waypost-startup-order://probe >/dev/null 2>&1 || true
kill "$app"
pkill -P "$recorder"  # the daemon, perf's one child: perf then writes its record and exits
wait "$recorder" || true
for data in open daemon; do
    perf script -i "$root/$data.data" -F ip,sym,dso 2>/dev/null | grep -F "($W)" | awk '{print $2}' | grep -v '^\[' || true
done
SCRIPT
chmod +x "$scratch/collect.sh"
for round in $(seq 1 "$rounds"); do
  rm -f .build/release/waypost
  make --no-print-directory release >/dev/null
  bin="$(readlink -f .build/release/waypost)"
  rm -rf "$scratch/root" && mkdir "$scratch/root"
  # The bus's own complaints (a notification server it fails to start, with no display) go to the log.
  dbus-run-session -- "$scratch/collect.sh" "$bin" "$bench" "$scratch/root" > "$scratch/found" 2> "$scratch/log" ||
    { cat "$scratch/log" >&2; exit 1; }
  cat "$order" "$scratch/found" | awk '!seen[$0]++' > "$scratch/merged"
  echo "round $round: $(sort -u "$scratch/found" | wc -l) functions faulted in, $(wc -l < "$scratch/merged") listed"
  mv "$scratch/merged" "$order"
done
rm -f .build/release/waypost
make --no-print-directory release >/dev/null
