"""Reads the system calls open-stages.sh recorded and prints where each call's time went.

A call is the chain of 16 system calls its messages make, in this order: the client sends; the bus
reads it and sends it on; the middle (dispatcher or C router) reads it and sends its own call; the
bus passes that to the app, which reads it and answers; the bus passes the answer back, the middle
reads it and answers the client; the bus passes that on and the client reads it. A stage is the time
from one of those calls to the next. Each step is the next system call of that process and kind
after the one before (anything else those processes do in between is passed over); a call whose
client sends again before its chain is whole is left out, and the count of those kept is printed.

    python3 open-stages.py TRACE BATCHES
TRACE: `perf script -F pid,cpu,time,event,trace` output. BATCHES: lines of `SIDE BUS MIDDLE APP CLIENT` pids.
"""
import re
import statistics
import sys
from collections import defaultdict

STEPS = [
    ("client", "send"), ("bus", "read"), ("bus", "send"), ("middle", "read"), ("middle", "send"),
    ("bus", "read"), ("bus", "send"), ("app", "read"), ("app", "send"),
    ("bus", "read"), ("bus", "send"), ("middle", "read"), ("middle", "send"),
    ("bus", "read"), ("bus", "send"), ("client", "read"),
]
STAGES = [
    "bus: wakes, reads the call", "bus: routes it to the middle", "middle: wakes, reads it",
    "MIDDLE: the call to the app made and sent", "bus: wakes, reads it", "bus: routes it to the app",
    "app: wakes, reads it", "APP: answers", "bus: wakes, reads the answer", "bus: routes it to the middle",
    "middle: wakes, reads it", "MIDDLE: the client's answer sent", "bus: wakes, reads it",
    "bus: routes it to the client", "client: wakes, reads the answer",
]
LINE = re.compile(r"\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+syscalls:(\w+):\s*(\S*)")


def events(path):
    """(µs, pid, 'send' | 'read', CPU) in time order: sendmsg calls, and reads that returned bytes."""
    for line in open(path):
        match = LINE.match(line)
        if not match:
            continue
        pid, cpu, seconds, name, value = int(match[1]), int(match[2]), float(match[3]), match[4], match[5]
        if name == "sys_enter_sendmsg":
            yield seconds * 1e6, pid, "send", cpu
        elif name == "sys_exit_recvmsg":
            returned = int(value, 16)
            if 0 < returned < 1 << 63:  # bytes read; not EAGAIN
                yield seconds * 1e6, pid, "read", cpu


def roles(bus, middle, app, client):
    return {bus: "bus", middle: "middle", app: "app", client: "client"}


def chains(trace, bus, middle, app, client):
    """The timestamps of each complete call's 16 system calls."""
    role = roles(bus, middle, app, client)
    mine = [(t, role[pid], kind) for t, pid, kind, _ in trace if pid in role]
    found, i = [], 0
    while i < len(mine):
        if mine[i][1:] != STEPS[0]:
            i += 1
            continue
        times, j = [mine[i][0]], i + 1
        while j < len(mine) and len(times) < len(STEPS):
            step = mine[j][1:]
            if step == STEPS[len(times)]:
                times.append(mine[j][0])
            elif step == STEPS[0]:
                break  # the client sent again: this chain is broken
            j += 1
        if len(times) == len(STEPS):
            found.append(times)
        i = j
    return found


# The stages that are the programs' own work (the rows in capitals).
OWN_WORK = [3, 7, 11]


def cpus(trace, bus, middle, app, client):
    """The CPU each of the batch's processes made most of its calls on, while its client ran."""
    role = roles(bus, middle, app, client)
    times = [t for t, pid, _, _ in trace if pid == client]
    counts = defaultdict(lambda: defaultdict(int))
    for t, pid, _, cpu in trace:
        if pid in role and times and times[0] <= t <= times[-1]:
            counts[role[pid]][cpu] += 1
    return " ".join(f"{r} {max(counts[r], key=counts[r].get) if counts[r] else '-'}" for r in role.values())


def main():
    trace = list(events(sys.argv[1]))
    by_side = defaultdict(list)
    rounds = defaultdict(list)  # each batch's calls and CPUs, by side, in the order they ran
    for line in open(sys.argv[2]):
        side, *pids = line.split()
        batch = chains(trace, *map(int, pids))
        by_side[side] += batch
        rounds[side].append((batch, cpus(trace, *map(int, pids))))
    sides = ["waypost", "c"]
    for side in sides:
        if not by_side[side]:
            sys.exit(f"open-stages: no {side} call was followed whole in {sys.argv[1]}: was perf recording?")
    print(f"{'stage (median µs)':46s} {'Waypost':>8s} {'C':>8s} {'difference':>11s}")
    for s, stage in enumerate(STAGES):
        medians = [statistics.median(c[s + 1] - c[s] for c in by_side[side]) for side in sides]
        print(f"{stage:46s} {medians[0]:8.1f} {medians[1]:8.1f} {medians[0] - medians[1]:+11.1f}")
    totals = [statistics.median(c[-1] - c[0] for c in by_side[side]) for side in sides]
    print(f"{'client send → client read (whole call)':46s} {totals[0]:8.1f} {totals[1]:8.1f} {totals[0] - totals[1]:+11.1f}")
    print(f"ratio of the whole calls' medians, Waypost / C: {totals[0] / totals[1]:.2f}x "
          f"({len(by_side['waypost'])} Opens and {len(by_side['c'])} C calls followed whole; traced, "
          "so compare stages: bench-dispatch gives the untraced ratio)")
    # Round by round: whether a whole batch moved together, and where its processes ran.
    print("round by round, the middle's call, the app's answer, the middle's answer (median µs), Waypost | C,"
          " and the CPU each Waypost process ran on:")
    for number, batches in enumerate(zip(rounds["waypost"], rounds["c"]), start=1):
        cells = [" / ".join(f"{statistics.median(c[s + 1] - c[s] for c in batch):.0f}" if batch else "-" for s in OWN_WORK)
                 for batch, _ in batches]
        print(f"  round {number}: {cells[0]:>14s} | {cells[1]:14s} ({batches[0][1]})")


main()
