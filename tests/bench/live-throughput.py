#!/usr/bin/env python3
"""What a live session costs the process it watches: issue 40's "under 2% of the target's throughput".

Runs the `throughput` workload (tools/tracegen/Workloads.cs: fixed units of allocation work, as fast
as it can, the units done each second on its stdout) on one runtime, and in that one process
alternates phases with a gcscope session attached and phases without one. Comparing seconds of the
same process removes what differs between runs (JIT, heap layout, where the kernel put it), which
on a shared machine is larger than the cost measured. The order flips every round (on/off, off/on)
so that a slow drift of the machine falls on both sides.

By default the workload runs on CPU 0 and gcscope on CPU 1 (`taskset`), so the figure is the cost
inside the target (the runtime writing events into its buffers and streaming them), not a contest
for a core that a 2-core machine would add; `--no-pin` lets the kernel place both.

  usage: tests/bench/live-throughput.py [--runtime net8.0] [--gcscope target/release/gcscope]
         [--command collect|watch] [--profile gc] [--rounds 6] [--phase 10] [--json OUT]

The figures in docs/performance.md ran the workload at about 100 GCs/s, a busy service's rate:
  GCSCOPE_TP_WORK=20000 GCSCOPE_LIVE_GEN0SIZE= tests/bench/live-throughput.py --runtime net10.0 --rounds 8
(GCSCOPE_TP_WORK: compute steps per unit; an empty GCSCOPE_LIVE_GEN0SIZE keeps the runtime's gen0
budget; without both it is an allocation loop at thousands of GCs/s, whose seconds vary by 20%.)

A second is counted in a phase when it lies wholly inside it, from 1 s after a session starts (the
attach) to its end, and for a phase without a session from 1 s after the last one ended.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", default="net8.0")
    ap.add_argument("--gcscope", default=os.path.join(ROOT, "target/release/gcscope"))
    ap.add_argument("--command", default="collect", choices=["collect", "watch"])
    ap.add_argument("--profile", default="gc")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--phase", type=int, default=10, help="seconds per phase")
    ap.add_argument("--warmup", type=int, default=8, help="seconds before the first phase")
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--json", help="write the per-second samples and the result here")
    a = ap.parse_args()
    if not os.access(a.gcscope, os.X_OK):
        sys.exit(f"live-throughput: no gcscope at {a.gcscope} (cargo build --release -p gcscope-cli)")

    total = a.warmup + a.rounds * 2 * (a.phase + 2) + 10
    tmp = tempfile.mkdtemp(prefix="gcscope-tp.")
    env = dict(os.environ, GCSCOPE_TP_SECONDS=str(total))
    pin_target = [] if a.no_pin else ["taskset", "-c", "0"]
    pin_tool = [] if a.no_pin else ["taskset", "-c", "1"]
    target = subprocess.Popen(
        pin_target + [os.path.join(ROOT, "tools/tracegen/live.sh"), a.runtime, os.path.join(tmp, "oracle.json"), "throughput"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, text=True)
    samples = []  # (end_ms, units, gen0, process_cpu_ms)
    ready = threading.Event()

    def read():
        for line in target.stdout:
            f = line.split()
            if f[:1] == ["ready"]:
                ready.set()
            elif f[:1] == ["tp"] and len(f) == 5:
                samples.append((float(f[1]), int(f[2]), int(f[3]), float(f[4])))
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(120) or target.poll() is not None:
        sys.exit(f"live-throughput: the workload did not start (exit {target.poll()}); is {a.runtime} cached? (tools/tracegen/live.sh)")
    time.sleep(a.warmup)

    now = lambda: time.time() * 1000.0
    phases = []  # (kind, round, start_ms, end_ms)
    for r in range(a.rounds):
        for kind in (("on", "off") if r % 2 == 0 else ("off", "on")):
            start = now()
            if kind == "on":
                out = os.path.join(tmp, "session.nettrace")
                if a.command == "collect":
                    cmd = [a.gcscope, "collect", "--pid", str(target.pid), "--profile", a.profile,
                           "--duration", f"{a.phase}s", "-o", out]
                else:
                    cmd = [a.gcscope, "watch", "--pid", str(target.pid), "--json"]
                p = subprocess.Popen(pin_tool + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if a.command == "watch":
                    time.sleep(a.phase)
                    p.send_signal(2)
                _, err = p.communicate(timeout=a.phase + 60)
                if p.returncode != 0:
                    sys.exit(f"live-throughput: gcscope {a.command} exited {p.returncode}: {err.strip()}")
            else:
                time.sleep(a.phase)
            phases.append((kind, r, start, now()))
            time.sleep(1.0)
    target.terminate()
    target.wait(10)

    def seconds_in(kind, r):
        out = []
        for k, rr, s, e in phases:
            if k != kind or rr != r:
                continue
            lo = s + 1000.0
            for end_ms, units, _, _ in samples:
                if end_ms - 1000.0 >= lo and end_ms <= e:
                    out.append(units)
        return out

    rounds = []
    for r in range(a.rounds):
        on, off = seconds_in("on", r), seconds_in("off", r)
        if on and off:
            rounds.append({"round": r, "on": statistics.median(on), "off": statistics.median(off),
                           "on_n": len(on), "off_n": len(off),
                           "cost_pct": 100.0 * (1.0 - statistics.median(on) / statistics.median(off))})
    if not rounds:
        sys.exit("live-throughput: no round had seconds on both sides")
    all_on = [u for r in range(a.rounds) for u in seconds_in("on", r)]
    all_off = [u for r in range(a.rounds) for u in seconds_in("off", r)]
    gc_rate = (samples[-1][2] - samples[0][2]) / max(1.0, (samples[-1][0] - samples[0][0]) / 1000.0) if len(samples) > 1 else 0.0
    result = {
        "runtime": a.runtime, "command": a.command, "profile": a.profile, "pinned": not a.no_pin,
        "phase_s": a.phase, "rounds": rounds,
        "median_on": statistics.median(all_on), "median_off": statistics.median(all_off),
        "cost_pct_pooled": 100.0 * (1.0 - statistics.median(all_on) / statistics.median(all_off)),
        "cost_pct_median_of_rounds": statistics.median(r["cost_pct"] for r in rounds),
        "cost_pct_mean_of_rounds": statistics.mean(r["cost_pct"] for r in rounds),
        # Two standard errors of the rounds' mean: the round-to-round noise, which on a shared
        # machine is larger than the cost.
        "cost_pct_2se": 2 * statistics.stdev(r["cost_pct"] for r in rounds) / len(rounds) ** 0.5 if len(rounds) > 1 else None,
        "gen0_per_s": gc_rate,
        "load": os.getloadavg(),
    }
    print(f"{a.runtime}, {a.command}" + (f" --profile {a.profile}" if a.command == "collect" else "")
          + f", {'pinned' if not a.no_pin else 'not pinned'}, ~{gc_rate:.0f} gen0 GCs/s, load {result['load'][0]:.1f}")
    print("| round | units/s with | units/s without | cost |")
    print("|---:|---:|---:|---:|")
    for r in rounds:
        print(f"| {r['round']} | {r['on']:.0f} ({r['on_n']} s) | {r['off']:.0f} ({r['off_n']} s) | {r['cost_pct']:+.2f}% |")
    if result["cost_pct_2se"] is not None:
        m, e = result["cost_pct_mean_of_rounds"], result["cost_pct_2se"]
        print(f"cost: mean of rounds {m:+.2f}%, 95% interval [{m - e:+.2f}%, {m + e:+.2f}%]")
    print(f"cost: {result['cost_pct_median_of_rounds']:+.2f}% (median of rounds), "
          f"{result['cost_pct_pooled']:+.2f}% (pooled medians {result['median_on']:.0f} / {result['median_off']:.0f})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(result, samples=samples, phases=phases), f)


if __name__ == "__main__":
    main()
