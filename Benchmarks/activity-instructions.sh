#!/usr/bin/env bash
# Instructions per call of bench-activities' round-trip figure (a publish beside AddScene), counted
# by valgrind's callgrind in each of the three processes a call crosses: the release daemon (each
# thread apart: its connection thread answers, the store's writer commits), the bus daemon, and the
# calling app (activity-bench's `phases`, through the DBus module as WaypostKit calls). Counts, unlike
# time on a shared VM, are the same from run to run.
#
#   make bench-activity-instructions            # N=1000
#   Benchmarks/activity-instructions.sh WAYPOST ACTIVITY_BENCH [N]   # KEEP=1 keeps the callgrind files
#
# Timing still shapes two counts: under valgrind every call is ~50x slower, so the store's commit
# (every 10 ms) takes fewer saves and CurrentActivityChanged (every 100 ms) comes every few calls,
# both counted per call more than at full speed.
set -euo pipefail

waypost=$1 bench=$2 count=${3:-1000}
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null \
    || { echo "activity-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
root=$(mktemp -d /tmp/activity-instructions.XXXXXX)
pids=()
cleanup() {
    exec 3>&- 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 0.5
    [ -n "${KEEP:-}" ] && echo "kept $root" || rm -rf "$root"
}
trap cleanup EXIT

# The app runs under callgrind, so the program its entry names (which the daemon checks the caller
# against) is callgrind's.
tool=$(dirname "$(readlink -f "$(command -v valgrind)")")/../libexec/valgrind/callgrind-amd64-linux
[ -x "$tool" ] || tool=/usr/libexec/valgrind/callgrind-amd64-linux
mkdir -p "$root/data/applications" "$root/config" "$root/state" "$root/home"
printf '[Desktop Entry]\nType=Application\nName=Bench 0\nExec=%s\nX-Waypost=true\nX-Waypost-Activity-Types=io.waypost.bench.show;\n' \
    "$(readlink -f "$tool")" > "$root/data/applications/io.waypost.bench.App0.desktop"
export HOME=$root/home XDG_DATA_HOME=$root/data XDG_CONFIG_HOME=$root/config XDG_STATE_HOME=$root/state XDG_DATA_DIRS=/usr/share
callgrind=(valgrind --tool=callgrind --separate-threads=yes)

address=unix:path=$root/bus
"${callgrind[@]}" --callgrind-out-file="$root/bus.%p" dbus-daemon --session --nofork --address="$address" \
    > "$root/bus.log" 2>&1 &
bus=$!; pids+=("$bus")
export DBUS_SESSION_BUS_ADDRESS=$address

WAIT_SECONDS=600
# shellcheck source=bus-waits.sh
. "$(dirname "$0")/bus-waits.sh"
wait_for "the bus starting" has_owner org.freedesktop.DBus
"${callgrind[@]}" --callgrind-out-file="$root/daemon.%p" "$waypost" daemon > "$root/daemon.log" 2>&1 &
daemon=$!; pids+=("$daemon")
wait_for "the daemon taking its name" has_owner io.waypost.Dispatcher

mkfifo "$root/phases"
"${callgrind[@]}" --callgrind-out-file="$root/app.%p" "$bench" phases "$address" "$count" < "$root/phases" > "$root/app.out" 2>"$root/app.log" &
app=$!; pids+=("$app")
exec 3> "$root/phases"
wait_for "the app registering" grep -q ready "$root/app.out"

# Instructions per call of the last dump of PREFIX.PID: all threads, then each thread's.
counts() {  # counts PREFIX PID
    callgrind_control -d "$2" > /dev/null 2>&1
    sleep 1
    local part
    part=$(ls "$root/$1.$2".* | sed -E 's/.*\.([0-9]+)(-[0-9]+)?$/\1/' | sort -n | tail -1)
    awk -v n="$count" '/^events:/ { for (i = 2; i <= NF; i++) if ($i == "Ir") column = i }
        /^(summary|totals):/ { value = $(column); total += value; threads = threads sprintf(" %.0f", value / n); nextfile }
        END { printf "%.0f (threads:%s)", total / n, threads }' "$root/$1.$2.$part"*
}
phases_done() { [ "$(grep -c '^done' "$root/app.out")" -ge "$1" ]; }
run() {  # run PHASE: zero every count, make COUNT calls of PHASE, print each process's per call
    for pid in "$bus" "$daemon" "$app"; do callgrind_control -z "$pid" > /dev/null 2>&1; done
    echo "$1" >&3
    phases=$((phases + 1))
    wait_for "phase $1" phases_done "$phases"
    printf '%-8s daemon %s\n' "$1" "$(counts daemon "$daemon")"
    printf '%-8s bus    %s\n' "$1" "$(counts bus "$bus")"
    printf '%-8s app    %s\n' "$1" "$(counts app "$app")"
}

echo "instructions per call ($count calls per phase; a pair is AddScene then RemoveScene):"
echo "saved" >&3  # warm-up: caches filled, first-use work done
phases=1
wait_for "the warm-up" grep -q "done saved" "$root/app.out"
for phase in pairs adds removes saved current; do run "$phase"; done
