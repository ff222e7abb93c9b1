#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a seeded generated trace for `migplan simulate` (CSV on stdout).

Usage: gen_trace.py [--pods N] [--gpus G] [--load L] [--seed S] [--whole PCT]

Poisson arrivals, heavy-tailed (Pareto, shape 1.5, at least 10 minutes)
durations, a sharing-heavy mix of h100-80gb profiles and, PCT % of the pods
(default 10), whole GPUs (one, two, four or eight per pod). The arrival rate
is set so the offered load is L (default 0.9) of G GPUs' compute slices.
The same mix as bench/replay_bench.cpp's, written as a file.
"""

import argparse
import random

# (item, compute slices per pod, weight)
SHARED = [("1g.10gb", 1, 30), ("1g.20gb", 1, 10), ("2g.20gb", 2, 20), ("3g.40gb", 3, 15),
          ("4g.40gb", 4, 5)]
WHOLE = [("gpu", 7, 12), ("2xgpu", 14, 5), ("4xgpu", 28, 2), ("8xgpu", 56, 1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--gpus", type=int, default=32)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--whole", type=float, default=10.0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    shared_w = sum(w for _, _, w in SHARED)
    whole_w = sum(w for _, _, w in WHOLE)
    kinds = [(i, s, w * (100 - a.whole) / shared_w) for i, s, w in SHARED]
    kinds += [(i, s, w * a.whole / whole_w) for i, s, w in WHOLE]
    total = sum(w for _, _, w in kinds)
    mean_slices = sum(s * w for _, s, w in kinds) / total
    shape, least = 1.5, 600.0
    mean_duration = shape * least / (shape - 1)
    rate = a.load * a.gpus * 7 / (mean_slices * mean_duration)
    print("name,start,end,count,item")
    now = 0.0
    for n in range(a.pods):
        now += rng.expovariate(rate)
        duration = least / (1.0 - rng.random()) ** (1.0 / shape)
        item = rng.choices([k[0] for k in kinds], weights=[k[2] for k in kinds])[0]
        start = int(now)
        print(f"pod-{n},{start},{start + int(min(duration, 30 * 86400))},1,{item}")


if __name__ == "__main__":
    main()
