#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes random pack requests, one per line in migplan's ITEM syntax.

Each request is a multiset of 1 to 7 profiles drawn uniformly from the
profiles the Python seed solver (../shared/reference/peers/seed_solver.py)
knows, so both solvers can answer every line. Only a100-40gb is used for the
comparison: the seed solver's placement table is A100-40GB's. The output is
fixed by --seed (random.Random is stable across Python 3 versions for
randrange/choice on the same seed).

    python3 bench/gen_requests.py -n 2000 --gpu a100-40gb -o requests.txt
"""
import argparse
import random
import sys

# The seed solver's profile names (its A100 and H100 tables), in its order.
PROFILES = {
    "a100-40gb": ["1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"],
    "h100-80gb": ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"],
}


def requests(gpu, n, seed, max_size=7):
    rng = random.Random(seed)
    names = PROFILES[gpu]
    for _ in range(n):
        size = rng.randrange(1, max_size + 1)
        counts = {}
        for _ in range(size):
            p = rng.choice(names)
            counts[p] = counts.get(p, 0) + 1
        # Largest profile first, as a person would write it; "2x1g.5gb" for repeats.
        words = [p if k == 1 else f"{k}x{p}"
                 for p, k in sorted(counts.items(), key=lambda e: -names.index(e[0]))]
        yield " ".join(words)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000, help="number of requests (default 2000)")
    ap.add_argument("--gpu", choices=sorted(PROFILES), default="a100-40gb")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--max-size", type=int, default=7, help="most instances per request")
    ap.add_argument("-o", "--output", default="-", help="file to write ('-' = stdout)")
    a = ap.parse_args()
    out = sys.stdout if a.output == "-" else open(a.output, "w", encoding="ascii")
    with out:
        for line in requests(a.gpu, a.n, a.seed, a.max_size):
            out.write(line + "\n")


if __name__ == "__main__":
    main()
