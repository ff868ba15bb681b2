#!/usr/bin/env bash
# The CPU two daemon builds spend per `Open`, measured side by side: each build gets its own private
# bus, throwaway XDG directories and bench app with 1,000 open scenes, and batches of sequential
# `Open`s go to one and then the other, alternating which goes first, so that what else the machine
# does weighs on both alike. CPU is every thread of the daemon (/proc/PID/task/*/schedstat), summed
# over the batches. On a shared VM one build's time drifts 10–25 % from run to run; the ratio of two
# builds measured this way moved 2 % between two copies of one build.
#
#   Benchmarks/daemon-ab.sh DISPATCH_BENCH WAYPOST_A WAYPOST_B [ROUNDS [BATCH]]
#   make bench-ab A=path/to/waypost B=path/to/other/waypost
set -euo pipefail

bench=$1 build_a=$2 build_b=$3 rounds=${4:-30} batch=${5:-200}
WAIT_SECONDS=60
# shellcheck source=bus-waits.sh
. "$(dirname "$0")/bus-waits.sh"
roots=() pids=() buses=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${buses[@]}"; do kill "$pid" 2>/dev/null || true; done
    for root in "${roots[@]}"; do rm -rf "$root"; done
}
trap cleanup EXIT

addresses=() daemons=()
start() {  # start WAYPOST: a bus, the daemon and the bench app; appends to addresses and daemons
    local root address bus_pid
    root=$(mktemp -d /tmp/daemon-ab.XXXXXX); roots+=("$root")
    throwaway_desktop "$root" "$bench"
    { read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
    buses+=("$bus_pid")
    export DBUS_SESSION_BUS_ADDRESS=$address
    "$1" daemon > "$root/daemon.log" 2>&1 &
    daemons+=($!); pids+=($!)
    wait_for "$1 taking its name" has_owner io.waypost.Dispatcher
    "$bench" app "$address" 0 1000 > "$root/app.out" 2>&1 &
    pids+=($!)
    wait_for "the bench app declaring its scenes" grep -q ready "$root/app.out"
    "$bench" opens "$address" 300 > /dev/null  # warm-up
    addresses+=("$address")
}
# A thread may exit between the glob and its read (dispatch's pool shrinks): that is no failure.
cpu_ns() { { cat /proc/"$1"/task/*/schedstat 2>/dev/null || true; } | awk '{ total += $1 } END { print total }'; }

start "$build_a"
start "$build_b"
spent=(0 0)
for round in $(seq "$rounds"); do
    for turn in 0 1; do
        which=$(( (round + turn) % 2 ))
        before=$(cpu_ns "${daemons[$which]}")
        "$bench" opens "${addresses[$which]}" "$batch" > /dev/null
        spent[$which]=$(( spent[which] + $(cpu_ns "${daemons[$which]}") - before ))
    done
done
opens=$(( rounds * batch ))
awk -v a="${spent[0]}" -v b="${spent[1]}" -v n="$opens" -v na="$build_a" -v nb="$build_b" 'BEGIN {
    printf "A %s: %.1f µs of daemon CPU per Open\n", na, a / n / 1000
    printf "B %s: %.1f µs of daemon CPU per Open\n", nb, b / n / 1000
    printf "ratio A / B: %.3f (%d Opens each, alternating batches)\n", a / b, n
}'
