#!/usr/bin/env bash
# Instructions (and simulated L1 instruction-cache misses) the daemon spends per `Open`, counted by
# valgrind's callgrind: unlike time on a shared VM, the count moves by about half a per cent from run
# to run, so it can judge a change of a few per cent. A private bus, the release daemon under
# callgrind, the bench app with 1,000 open scenes, N sequential `Open`s from `dispatch-bench opens`;
# then the C router (Benchmarks/yardsticks' `echo-server --forward-to`) is counted the same way, per
# two-hop call.
#
# What valgrind 3.19 (Debian 12's) cannot do, and how the daemon counted is still the release one:
# - it cannot read the debug information lld writes, so it runs a copy with the debug sections
#   removed (`objcopy --strip-debug`: the same code at the same addresses, the symbol table kept
#   for callgrind_annotate);
# - it has no handler for pidfd_open and answers ENOSYS, so the daemon could not hold the
#   registering app's process and would refuse it: valgrind/native-pidfd.c, preloaded into the
#   daemon's run only, makes that one call on the real CPU and passes every other through.
#   KEEP=1 keeps the callgrind files (callgrind_annotate cg.out.PID).
#
#   make bench-instructions            # N=2000
#   Benchmarks/daemon-instructions.sh WAYPOST DISPATCH_BENCH [N]
set -euo pipefail

waypost=$1 bench=$2 count=${3:-2000}
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null \
    || { echo "daemon-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
root=$(mktemp -d /tmp/daemon-instructions.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 0.5
    [ -n "${bus_pid:-}" ] && kill "$bus_pid" 2>/dev/null || true
    [ -n "${KEEP:-}" ] && echo "kept $root" || rm -rf "$root"
}
trap cleanup EXIT

WAIT_SECONDS=60
# shellcheck source=bus-waits.sh
. "$(dirname "$0")/bus-waits.sh"
# The bench app's desktop entry runs the bench executable, so the daemon's program check passes.
throwaway_desktop "$root" "$bench"
{ read -r address; read -r bus_pid; } < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS=$address

# Ir, then I1 misses, per operation, from the dump callgrind writes when told to.
counts() {  # counts PID N
    callgrind_control -d "$1" >/dev/null 2>&1
    sleep 1
    local dump
    dump=$(ls -t "$root"/cg.out."$1".* | head -1)
    awk -v n="$2" '/^events:/ { for (i = 2; i <= NF; i++) column[$i] = i }
        /^(summary|totals):/ { printf "%.0f %.0f\n", $(column["Ir"]) / n, $(column["I1mr"]) / n; exit }' "$dump"
}
callgrind=(valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$root/cg.out.%p")

objcopy --strip-debug "$waypost" "$root/waypost"
cc -O2 -Wall -shared -fPIC -o "$root/native-pidfd.so" "$(dirname "$0")/valgrind/native-pidfd.c" -ldl
LD_PRELOAD=$root/native-pidfd.so "${callgrind[@]}" "$root/waypost" daemon > "$root/daemon.log" 2>&1 &
daemon=$!; pids+=("$daemon")
wait_for "the daemon taking its name" has_owner io.waypost.Dispatcher
"$bench" app "$address" 0 1000 > "$root/app.out" 2>&1 &
pids+=($!)
wait_for "the bench app declaring its scenes" grep -q ready "$root/app.out"

"$bench" opens "$address" 300 > /dev/null  # warm-up: caches filled, first-use work done
callgrind_control -z "$daemon" > /dev/null 2>&1
"$bench" opens "$address" "$count" > /dev/null
read -r daemon_ir daemon_i1 < <(counts "$daemon" "$count")
echo "daemon: $daemon_ir instructions and $daemon_i1 L1i misses (simulated) per Open ($count sequential, 1,000 open scenes)"

yardsticks="$(cd "$(dirname "$0")" && pwd)/yardsticks"
make -s -C "$yardsticks" BIN="$root/yardsticks" >/dev/null
"$root/yardsticks/echo-server" > "$root/echo.out" &
pids+=($!)
wait_for "the C app taking its name" has_owner io.waypost.bench.Echo
"${callgrind[@]}" "$root/yardsticks/echo-server" --name io.waypost.bench.Router --forward-to io.waypost.bench.Echo \
    > "$root/router.out" 2>&1 &
router=$!; pids+=("$router")
wait_for "the C router taking its name" has_owner io.waypost.bench.Router
route=(--to io.waypost.bench.Router --method Route --warm-up 0)
"$root/yardsticks/call-client" --calls 300 "${route[@]}" > /dev/null  # warm-up, as for the daemon
callgrind_control -z "$router" > /dev/null 2>&1
"$root/yardsticks/call-client" --calls "$count" "${route[@]}" > /dev/null
read -r router_ir router_i1 < <(counts "$router" "$count")
echo "C router: $router_ir instructions and $router_i1 L1i misses (simulated) per two-hop call"
awk -v a="$daemon_ir" -v b="$router_ir" -v c="$daemon_i1" -v d="$router_i1" \
    'BEGIN { printf "ratio daemon / C router: %.2fx instructions, %.2fx L1i misses\n", a / b, c / d }'
