#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fragmented_fleet.py [GPUS] [SEED]: a migplan state file (stdout) of GPUS
H100-80GB GPUs (default 1000) on nodes of 8, each holding one of a few
fragmented layouts drawn with the seed (default 39), none of which can take a
3g.40gb (starts 0 and 4) or a 4g.40gb (start 0): what `place --allow-moves`
is timed on (bench/README.md, "Defragmentation")."""
import random
import sys

# Each blocks units 0-3 and 4-7 alike, leaving scattered room.
LAYOUTS = [
    [("1g.10gb", 1), ("1g.10gb", 5)],
    [("2g.20gb", 2), ("1g.10gb", 6)],
    [("1g.10gb", 0), ("1g.10gb", 3), ("1g.10gb", 4)],
    [("2g.20gb", 0), ("2g.20gb", 4), ("1g.10gb", 2)],
    [("1g.20gb", 2), ("2g.20gb", 4)],
    [("1g.10gb", 3), ("1g.10gb", 4), ("1g.10gb", 6)],
]


def main():
    gpus = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 39)
    out = ["version: 1", "nodes:"]
    for n in range((gpus + 7) // 8):
        out += [f"  - name: node-{n:04d}", "    gpu: h100-80gb", "    gpus:"]
        for i in range(min(8, gpus - 8 * n)):
            held = ", ".join(f"{{profile: {p}, start: {s}}}" for p, s in rng.choice(LAYOUTS))
            out.append(f"      - {{index: {i}, instances: [{held}]}}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
