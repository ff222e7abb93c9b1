#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One queued comparison over many generated traces, not one.

A FIFO queue on a fleet short of its demand is chaotic: a second more or
less at one event reorders what starts when, and a wait percentile of one
trace can move tenfold (doc/simulate.md, "How far one trace goes"). This
replays the same policies on traces of several seeds and prints, per
policy and figure, the median over the seeds and the lowest and highest:

    bench/queue_seeds.py build/dev/migplan --seeds 21-28 --gpus 30 \
        --policy static --policy dra-first-fit --policy pack-best-fit \
        -- --queue --create-seconds 1.5

Traces come from bench/gen_trace.py (--pods, --trace-gpus, --whole as
there); whatever follows `--` goes to every `migplan simulate`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def seeds_of(text):
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def clock(s):
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


FIGURES = [
    ("wait p50", lambda p: p["queue"]["wait_seconds"]["p50"], clock),
    ("wait p99", lambda p: p["queue"]["wait_seconds"]["p99"], clock),
    ("wait max", lambda p: p["queue"]["wait_seconds"]["max"], clock),
    ("GPU-hours", lambda p: p["gpu_seconds"] / 3600, lambda v: f"{v:.1f}"),
    ("stranded slice-hours", lambda p: p["stranded_slice_seconds"] / 3600,
     lambda v: f"{v:.1f}"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("migplan")
    ap.add_argument("--seeds", default="21-28")
    ap.add_argument("--pods", type=int, default=3000)
    ap.add_argument("--trace-gpus", type=int, default=24)
    ap.add_argument("--whole", type=int, default=2)
    ap.add_argument("--gpu", default="h100-80gb")
    ap.add_argument("--gpus", type=int, default=30)
    ap.add_argument("--policy", action="append", default=[])
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.rest = argv[cut + 1:]
    if "--queue" not in a.rest and "--backfill" not in a.rest:
        sys.exit("queue_seeds: give --queue or --backfill after --")
    got = {}  # policy -> figure -> [values]
    order = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds_of(a.seeds):
            trace = os.path.join(tmp, f"{seed}.csv")
            with open(trace, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_trace.py"),
                                "--pods", str(a.pods), "--gpus", str(a.trace_gpus),
                                "--whole", str(a.whole), "--seed", str(seed)],
                               stdout=f, check=True)
            cmd = [a.migplan, "simulate", "--trace", trace, "--gpu", a.gpu, "--gpus",
                   str(a.gpus), "--json"]
            for p in a.policy:
                cmd += ["--policy", p]
            out = subprocess.run(cmd + a.rest, capture_output=True, text=True)
            if out.returncode not in (0, 1):
                sys.exit(f"queue_seeds: seed {seed}: {out.stderr.strip()}")
            for p in json.loads(out.stdout)["policies"]:
                if p["name"] not in got:
                    order.append(p["name"])
                figs = got.setdefault(p["name"], {})
                for name, take, _ in FIGURES:
                    figs.setdefault(name, []).append(take(p))
    seeds = list(seeds_of(a.seeds))
    print(f"{len(seeds)} traces (seeds {a.seeds}), {a.gpus} GPUs: "
          "median over the traces [lowest, highest], traces where least")
    width = max(len(n) for n in order)
    for name, _, show in FIGURES:
        print(name)
        for p in order:
            v = got[p][name]
            least = sum(1 for i, x in enumerate(v)
                        if x <= min(got[q][name][i] for q in order))
            print(f"  {p:<{width}}  {show(statistics.median(v)):>8}"
                  f"  [{show(min(v))}, {show(max(v))}]  {least}")


if __name__ == "__main__":
    main()
