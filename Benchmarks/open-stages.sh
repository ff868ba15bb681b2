#!/usr/bin/env bash
# Where an `Open`'s time goes, stage by stage, beside the C two hops: the client's call through the
# bus to the dispatcher, its call to the app, the app's answer and the dispatcher's, each stage
# timed from one process's system call to the next one's. The kernel's own record of those calls
# (perf's syscall tracepoints, every CPU) gives the times, so nothing is added to the programs.
#
#   Benchmarks/open-stages.sh WAYPOST DISPATCH_BENCH [ROUNDS [BATCH]]
#   make bench-stages
#
# Each round, BATCH (500) sequential `Open`s from `dispatch-bench opens` through `waypost daemon`
# to the bench app with 1,000 open scenes, then BATCH `Route` calls from `call-client` through the
# C router (`echo-server --forward-to`) to a C `echo-server`, each setup on its own private bus;
# ROUNDS (6) rounds. Every call is followed from the client's sendmsg to the client's recvmsg of
# the answer; the medians of each stage over all calls are printed. Tracing costs each system call
# a little time, the same on both sides: compare the stages, and take the untraced end-to-end
# ratio from bench-dispatch. Needs root (tracepoints on every CPU), perf and python3.
set -euo pipefail

waypost=$1 bench=$2 rounds=${3:-6} batch=${4:-500}
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d /tmp/open-stages.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$root"
}
trap cleanup EXIT
WAIT_SECONDS=60
# shellcheck source=bus-waits.sh
. "$here/bus-waits.sh"

new_bus() {  # new_bus: a private bus; sets address and bus_pid
    { read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
    pids+=("$bus_pid")
}

# Waypost: the daemon and the bench app, as bench-dispatch runs them.
new_bus
waypost_address=$address waypost_bus=$bus_pid
(
    throwaway_desktop "$root" "$bench"
    export DBUS_SESSION_BUS_ADDRESS=$waypost_address
    exec "$waypost" daemon > "$root/daemon.log" 2>&1
) &
daemon=$!; pids+=("$daemon")
DBUS_SESSION_BUS_ADDRESS=$waypost_address wait_for "the daemon taking its name" has_owner io.waypost.Dispatcher
"$bench" app "$waypost_address" 0 1000 > "$root/app.out" 2>&1 &
app=$!; pids+=("$app")
wait_for "the bench app declaring its scenes" grep -q ready "$root/app.out"
"$bench" opens "$waypost_address" 500 > /dev/null  # warm-up

# C: the router and the app it forwards to, on a bus of their own.
make -s -C "$here/yardsticks" BIN="$root/yardsticks" > /dev/null
new_bus
c_address=$address c_bus=$bus_pid
DBUS_SESSION_BUS_ADDRESS=$c_address "$root/yardsticks/echo-server" > "$root/echo.out" &
echo_app=$!; pids+=("$echo_app")
DBUS_SESSION_BUS_ADDRESS=$c_address "$root/yardsticks/echo-server" --name io.waypost.bench.Router \
    --forward-to io.waypost.bench.Echo > "$root/router.out" &
router=$!; pids+=("$router")
DBUS_SESSION_BUS_ADDRESS=$c_address wait_for "the C router taking its name" has_owner io.waypost.bench.Router
DBUS_SESSION_BUS_ADDRESS=$c_address wait_for "the C app taking its name" has_owner io.waypost.bench.Echo

perf record -q -a -o "$root/perf.data" \
    -e syscalls:sys_enter_sendmsg -e syscalls:sys_exit_recvmsg 2> "$root/perf.err" &
perf=$!; pids+=("$perf")
recording() {  # whether perf has started writing; a perf that exited says why, and the run stops
    kill -0 "$perf" 2>/dev/null || { echo "open-stages: perf could not record:" >&2; cat "$root/perf.err" >&2; exit 1; }
    test -s "$root/perf.data"
}
wait_for "perf starting to record" recording
: > "$root/batches"
for _ in $(seq "$rounds"); do
    "$bench" opens "$waypost_address" "$batch" > /dev/null &
    client=$!; wait "$client"
    echo "waypost $waypost_bus $daemon $app $client" >> "$root/batches"
    DBUS_SESSION_BUS_ADDRESS=$c_address "$root/yardsticks/call-client" --calls "$batch" --warm-up 0 \
        --to io.waypost.bench.Router --method Route > /dev/null &
    client=$!; wait "$client"
    echo "c $c_bus $router $echo_app $client" >> "$root/batches"
done
kill -INT "$perf"; wait "$perf" || true
perf script -i "$root/perf.data" -F pid,cpu,time,event,trace 2>/dev/null > "$root/trace.txt"
python3 "$here/open-stages.py" "$root/trace.txt" "$root/batches"
