#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-process comparison of `migplan pack --batch` with the Python seed
# solver (../shared/reference/peers/seed_solver.py) on the same random
# requests, plus the start-up time of one `migplan pack` process, and a check
# that both count the same layouts for every request.
#
#   bash bench/compare.sh [MIGPLAN] [N]
#
# MIGPLAN: the built binary (default build/bench/migplan, else
# build/release/migplan); nothing is built here. N: requests (default 2000).
# Environment: OUT=DIR keeps the requests, outputs and hyperfine exports
# there (default: a fresh temporary folder, printed at the end);
# RUNS/WARMUP set hyperfine's --runs/--warmup (default 10/3); SEED_SOLVER
# points at seed_solver.py; BENCH at migplan_bench (default: next to MIGPLAN,
# bench/migplan_bench) for the in-process figures; PYTHON at the interpreter
# for the timed runs (default: python3's real executable with -S).
#
# The Python side is given its best case: the interpreter binary itself, not
# a wrapper such as a pyenv shim (which here adds ~150 ms per start), and -S
# (no site-packages scan; the driver needs only the standard library).
#
# Machines are shared and noisy: read the ratios, which come from one
# hyperfine run, rather than the absolute times.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

bin=${1:-}
if [[ -z $bin ]]; then
  for c in "$root/build/bench/migplan" "$root/build/release/migplan"; do
    if [[ -x $c ]]; then bin=$c; break; fi
  done
fi
if [[ -z $bin || ! -x $bin ]]; then
  echo "compare.sh: no migplan binary${bin:+ at $bin}; build one first:" >&2
  echo "  cmake --preset bench && cmake --build --preset bench" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
n=${2:-2000}
runs=${RUNS:-10}
warmup=${WARMUP:-3}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/migplan-compare.XXXXXX")}
mkdir -p "$out"
bench_bin=${BENCH:-$(dirname "$bin")/bench/migplan_bench}
solver_args=()
if [[ -n ${SEED_SOLVER:-} ]]; then solver_args=(--solver "$SEED_SOLVER"); fi

py=${PYTHON:-"$(python3 -c 'import sys; print(sys.executable)') -S"}
command -v hyperfine > /dev/null || { echo "compare.sh: hyperfine is not installed" >&2; exit 2; }

req=$out/requests.txt
one=$out/one.txt
python3 "$here/gen_requests.py" -n "$n" --gpu a100-40gb -o "$req"
head -n 1 "$req" > "$one"

echo "== machine"
echo "date:   $(date -u +%Y-%m-%dT%H:%MZ)"
echo "cpus:   $(nproc) x $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg)"
echo "python: $($py --version 2>&1) ($py)"
echo "binary: $bin"
echo

# --- Agreement: migplan's layout_count against the seed solver's, per request.
echo "== agreement on $n requests (a100-40gb)"
set +e
"$bin" pack --gpu a100-40gb --batch "$req" > "$out/migplan.jsonl" 2> "$out/migplan.err"
rc=$?
set -e
if [[ $rc -gt 1 ]]; then
  echo "compare.sh: migplan pack --batch exited $rc:" >&2
  cat "$out/migplan.err" >&2
  exit 2
fi
$py "$here/seed_driver.py" "${solver_args[@]}" --time "$req" > "$out/seed.txt" 2> "$out/seed.err"
python3 - "$req" "$out/migplan.jsonl" "$out/seed.txt" "$here" "${SEED_SOLVER:-}" <<'PY' | tee "$out/agreement.txt"
import json, sys
req_path, mig_path, seed_path, here, solver = sys.argv[1:6]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, here)
import seed_driver
mod = seed_driver.load_solver(solver or seed_driver.DEFAULT_SOLVER)
lines = [l.rstrip("\n") for l in open(req_path)]
mig = {}
for l in open(mig_path):
    j = json.loads(l)
    if "error" in j:
        sys.exit(f"migplan refused line {j['line']}: {j['error']['message']}")
    mig[j["line"]] = j
seed = [int(x) for x in open(seed_path)]
workloads = seed_driver.parse(req_path, mod.PLACE)
assert len(workloads) == len(seed) == len(lines) == len(mig), "outputs do not line up"
agree = disagree = agree_caps = disagree_caps = 0
findings = []
for i, (line, w, s) in enumerate(zip(lines, workloads, seed), 1):
    m = mig[i]["layout_count"]
    # Caps and compute slices from the seed solver's own A100 table:
    # name -> (compute slices, GB, instance cap); 7 compute slices in all.
    counts = {p: w.count(p) for p in set(w)}
    within = (all(k <= mod.A100[p][2] for p, k in counts.items())
              and sum(mod.A100[p][0] for p in w) <= 7)
    if m == s:
        agree += 1
        agree_caps += within
    else:
        disagree += 1
        disagree_caps += within
        code = (mig[i]["reason"] or {}).get("code", "none")
        findings.append(f"  line {i}: {line!r}: migplan {m} ({code}), seed solver {s}"
                        f"{'' if within else ' [exceeds caps/compute]'}")
print(f"within caps and compute: {agree_caps + disagree_caps} requests, "
      f"{agree_caps} agree, {disagree_caps} disagree")
print(f"all requests:            {len(lines)} requests, {agree} agree, {disagree} disagree")
feasible = sum(1 for j in mig.values() if j["feasible"])
print(f"migplan: {feasible} fit, {len(lines) - feasible} do not")
for f in findings[:20]:
    print(f)
if len(findings) > 20:
    print(f"  ... {len(findings) - 20} more in the files under the output folder")
PY
echo

# --- In-process figures (no process start-up): Python search() alone against
# migplan_bench on the same file, when the bench binary is there.
echo "== in-process, same $n requests"
sed 's/^seed_driver: /python search():          /' "$out/seed.err"
if [[ -x $bench_bin ]]; then
  "$bench_bin" --requests="$req" --requests-gpu=a100-40gb \
    --benchmark_filter='^file/' --benchmark_min_time=0.5 \
    --benchmark_format=json > "$out/bench.json" 2> "$out/bench.err"
  python3 - "$out/bench.json" "$out/seed.err" <<'PY'
import json, re, sys
b = json.load(open(sys.argv[1]))
m = re.search(r"search ([0-9.]+) s", open(sys.argv[2]).read())
n = int(re.search(r"(\d+) requests", open(sys.argv[2]).read()).group(1))
py_qps = n / float(m.group(1))
for r in b["benchmarks"]:
    qps = r["items_per_second"]
    print(f"migplan {r['name'].split('/')[-1]:<16} {qps:>10.0f} requests/s  "
          f"= {qps / py_qps:6.1f}x python search()")
PY
else
  echo "(no $bench_bin; build with the bench preset for the in-process figures)"
fi
echo

# --- Whole processes, one hyperfine run. -N: no shell, output to /dev/null.
echo "== whole processes (hyperfine --warmup $warmup --runs $runs)"
hyperfine -N -i --warmup "$warmup" --runs "$runs" --style basic \
  --export-json "$out/hyperfine.json" --export-markdown "$out/hyperfine.md" \
  -n "migplan-batch" "$bin pack --gpu a100-40gb --batch $req" \
  -n "migplan-brief" "$bin pack --gpu a100-40gb --batch $req --brief" \
  -n "python-batch" "$py $here/seed_driver.py ${solver_args[*]} $req" \
  -n "migplan-single" "$bin pack 4g.20gb 2g.10gb 1g.5gb" \
  -n "migplan-batch-1" "$bin pack --gpu a100-40gb --batch $one" \
  -n "python-batch-1" "$py $here/seed_driver.py ${solver_args[*]} $one" \
  > "$out/hyperfine.txt" 2> "$out/hyperfine.err" || { cat "$out/hyperfine.err" >&2; exit 2; }
python3 - "$out/hyperfine.json" "$n" <<'PY' | tee "$out/summary.txt"
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
mean = {k: v["mean"] for k, v in r.items()}
sd = {k: v["stddev"] or 0.0 for k, v in r.items()}
for k in r:
    print(f"{k:<16} mean {mean[k] * 1e3:9.2f} ms  sd {sd[k] * 1e3:7.2f} ms  "
          f"min {r[k]['min'] * 1e3:9.2f} ms")
a, b = mean["migplan-batch"], mean["python-batch"]
print()
print(f"throughput, whole process ({n} requests): migplan {n / a:,.0f} req/s, "
      f"python {n / b:,.0f} req/s; ratio {b / a:.2f}x (target >= 100x)")
d = mean["migplan-brief"]
print(f"with --brief (tab-separated, no closest fits): migplan {n / d:,.0f} req/s; "
      f"ratio {b / d:.2f}x")
# Start-up cancels out of the difference between N and 1 requests.
ma = (a - mean["migplan-batch-1"]) / (n - 1)
mb = (b - mean["python-batch-1"]) / (n - 1)
if ma > 0 and mb > 0:
    print(f"per request, start-up removed: migplan {ma * 1e6:.1f} us, python {mb * 1e6:.1f} us; "
          f"ratio {mb / ma:.2f}x")
c = mean["migplan-single"]
print(f"one 'migplan pack 4g.20gb 2g.10gb 1g.5gb' process: {c * 1e3:.2f} ms "
      f"({'meets' if c < 0.005 else 'misses'} the < 5 ms target)")
PY
echo
echo "outputs in $out"
