#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the Python seed solver's search() on every request of a file.

The baseline for bench/compare.sh. It imports seed_solver.py unmodified from
the shared reference material (../shared/reference/peers/ relative to the
repository root, or --solver PATH) and prints one line per request: the
number of layouts search() found, so the work cannot be skipped and the
counts can be checked against migplan's `layout_count`.

    python3 bench/seed_driver.py requests.txt [--solver PATH] [--time]

Requests use migplan's syntax: [Nx]PROFILE per word, '#' starts a comment,
blank lines are skipped. Pinned starts (@N) are not supported by the seed
solver and are refused. --time reports on stderr the seconds spent in
search() alone (no interpreter start-up, parsing or printing).
"""
import argparse
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOLVER = os.path.join(HERE, "..", "..", "shared", "reference", "peers",
                              "seed_solver.py")


def load_solver(path):
    if os.path.isdir(path):
        path = os.path.join(path, "seed_solver.py")
    if not os.path.isfile(path):
        sys.exit(f"seed_driver: no seed solver at {path}; pass --solver PATH")
    spec = importlib.util.spec_from_file_location("seed_solver", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def parse(path, known):
    out = []
    with (sys.stdin if path == "-" else open(path, encoding="utf-8")) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].replace(",", " ").split()
            if not words:
                continue
            workload = []
            for w in words:
                count, name = 1, w
                head, sep, tail = w.partition("x")
                if sep and head.isdigit():
                    count, name = int(head), tail
                if "@" in name:
                    sys.exit(f"{path}:{number}: pinned starts are not supported by the seed solver")
                if name not in known:
                    sys.exit(f"{path}:{number}: the seed solver has no profile '{name}'")
                workload += [name] * count
            out.append(workload)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("requests", help="request file ('-' = stdin)")
    ap.add_argument("--solver", default=DEFAULT_SOLVER,
                    help="seed_solver.py or the folder holding it")
    ap.add_argument("--time", action="store_true",
                    help="print the seconds spent in search() to stderr")
    a = ap.parse_args()
    solver = load_solver(a.solver)
    workloads = parse(a.requests, solver.PLACE)
    counts = []
    t0 = time.perf_counter()
    for w in workloads:
        counts.append(len(solver.search(w)))
    elapsed = time.perf_counter() - t0
    sys.stdout.write("".join(f"{c}\n" for c in counts))
    if a.time:
        print(f"seed_driver: {len(workloads)} requests, search {elapsed:.6f} s, "
              f"{len(workloads) / elapsed if elapsed else 0:.0f} requests/s", file=sys.stderr)


if __name__ == "__main__":
    main()
