#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Start-up of one migplan process against a static C++ hello-world
# (bench/hello.cpp, built here with -O2 -static), side by side in one
# hyperfine run, so the ratio holds on a shared, noisy machine:
# `migplan --version` and a one-shot `migplan pack 4g.20gb 2g.10gb 1g.5gb`,
# and the same two for OLD when given (say, main's binary before a change).
#
#   bash bench/startup.sh [MIGPLAN] [OLD]
#
# MIGPLAN: default build/bench/migplan, else build/release/migplan (the lean
# link; nothing is built here but the hello-world). RUNS/WARMUP set
# hyperfine's --runs/--warmup (default 1000/50); OUT=DIR keeps the export.
# Prints each command's mean and its ratio to the hello-world's, and, where
# perf is installed, each command's page faults.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
bin=${1:-}
if [[ -z $bin ]]; then
  for c in "$root/build/bench/migplan" "$root/build/release/migplan"; do
    if [[ -x $c ]]; then bin=$c; break; fi
  done
fi
[[ -n $bin && -x $bin ]] || { echo "startup.sh: no migplan binary; build the bench preset" >&2; exit 2; }
old=${2:-}
command -v hyperfine > /dev/null || { echo "startup.sh: hyperfine is not installed" >&2; exit 2; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/migplan-startup.XXXXXX")}
mkdir -p "$out"
"${CXX:-g++}" -O2 -static -o "$out/hello" "$here/hello.cpp"

cmds=("$out/hello" "$bin --version" "$bin pack 4g.20gb 2g.10gb 1g.5gb")
if [[ -n $old ]]; then cmds+=("$old --version" "$old pack 4g.20gb 2g.10gb 1g.5gb"); fi
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  cpus: $(nproc)  $(hyperfine --version)"
hyperfine -N --warmup "${WARMUP:-50}" --runs "${RUNS:-1000}" --output=null \
  --export-json "$out/startup.json" "${cmds[@]}" > "$out/hyperfine.txt"
python3 - "$out/startup.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]
print(f"{'command':<60} {'mean':>9} {'median':>9} {'x hello (mean)':>15} {'x hello (median)':>17}")
for r in results:
    print(f"{r['command'][-60:]:<60} {r['mean']*1e3:7.2f}ms {r['median']*1e3:7.2f}ms "
          f"{r['mean']/base['mean']:15.2f} {r['median']/base['median']:17.2f}")
PY
# Page faults per command, where perf can count them: what the layout of the
# binary changes (a fault in this virtual machine costs tens of microseconds).
if command -v perf > /dev/null && perf stat -e page-faults true > /dev/null 2>&1; then
  for c in "${cmds[@]}"; do
    # shellcheck disable=SC2086 # each command is a command line, split on purpose
    faults=$(perf stat -x, -r 20 -e page-faults $c 2>&1 > /dev/null | awk -F, '/page-faults/ {print $1}')
    printf '%6s page faults  %s\n' "$faults" "$c"
  done
fi
echo "(export: $out/startup.json)"
