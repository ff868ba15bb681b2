#!/usr/bin/python3
"""Does one app churning its condition sets stall another app's links?

A private session with two participating apps: "Quiet" (one scene taking any link) and "Churn".
`Open`s to Quiet are timed one after another, first with Churn idle, then while Churn replaces its
scenes' sets as fast as the dispatcher answers (4 calls in flight, CONDITIONS conditions of 64 bytes
per change, spread over SCENES scenes). Prints the p50/p99 of each phase and the ratio of the
p99s: under load / idle (the goal is under 1.5); then the churner's changes a second and how many
were refused Busy, and the CPU the daemon, the bus and the churner used while it churned. Both phases' Opens are interleaved in rounds, since
the machine's speed drifts; the ratio is what to compare, not the times.

    /usr/bin/python3 Benchmarks/stress/churn.py [OPENS] [SCENES] [CONDITIONS]    # 2000 100 16
    WAYPOST=.build/debug/waypost /usr/bin/python3 Benchmarks/stress/churn.py     # another build
"""
import signal
import subprocess
import sys
import time

from stress_session import Session, cpu_seconds, percentile, waypost_binary


def timed_opens(session, count):
    times = []
    for index in range(count):
        started = time.perf_counter()
        session.open("quiet://item/%d" % index)
        times.append(time.perf_counter() - started)
    return times


def main():
    opens = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    scenes = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    conditions = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    session = Session({"org.example.Quiet": "quiet", "org.example.Churn": "churn"})
    try:
        session.start_app("org.example.Quiet", "plain")
        timed_opens(session, 200)  # warm-up
        idle, loaded, reports = [], [], []
        used = {"daemon": 0.0, "bus": 0.0, "churner": 0.0}
        churning = 0.0
        rounds = 4
        for _ in range(rounds):
            idle += timed_opens(session, opens // rounds)
            churn = session.start_app("org.example.Churn", "churn", scenes, conditions, stderr=subprocess.PIPE)
            time.sleep(0.5)  # let the churn reach its pace
            pids = {"daemon": session.daemon.pid, "bus": session.bus_pid, "churner": churn.pid}
            before, started = {k: cpu_seconds(p) for k, p in pids.items()}, time.monotonic()
            loaded += timed_opens(session, opens // rounds)
            churning += time.monotonic() - started
            for name, pid in pids.items():
                used[name] += cpu_seconds(pid) - before[name]
            churn.send_signal(signal.SIGTERM)
            reports.append(churn.stderr.read().strip())
            churn.wait()
        ms = lambda s: "%.3f ms" % (s * 1000)
        print("waypost: %s" % waypost_binary())
        print("idle:       p50 %s  p99 %s  (%d opens)" % (ms(percentile(idle, 0.5)), ms(percentile(idle, 0.99)), len(idle)))
        print("churning:   p50 %s  p99 %s  (%d opens; %d scenes, %d conditions of 64 bytes per change)"
              % (ms(percentile(loaded, 0.5)), ms(percentile(loaded, 0.99)), len(loaded), scenes, conditions))
        print("p99 ratio (churning / idle): %.2f  (goal < 1.5)" % (percentile(loaded, 0.99) / percentile(idle, 0.99)))
        print("churner, each round: %s" % "; ".join(report.replace("churn: ", "") for report in reports))
        print("CPU while churning: " + ", ".join("%s %.0f %%" % (name, 100 * seconds / churning) for name, seconds in used.items()))
    finally:
        session.close()


if __name__ == "__main__":
    main()
