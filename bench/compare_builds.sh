#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Before/after: two migplan binaries (say, main's and a branch's) on the same
# `pack --batch` requests, JSON and --brief, in one hyperfine run, so the ratio
# holds on a noisy machine. Checks first that both print the same answers.
#
#   bash bench/compare_builds.sh OLD_BINARY NEW_BINARY [N requests, default 20000]
#
# RUNS/WARMUP set hyperfine's --runs/--warmup (default 15/3); OUT=DIR keeps
# the requests, outputs and hyperfine's JSON export.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
old=${1:?old binary} new=${2:?new binary} n=${3:-20000}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
python3 "$here/gen_requests.py" -n "$n" --gpu a100-40gb -o "$out/requests.txt"

# Same answers (layout counts and reasons, ignoring number formatting).
for mode in json brief; do
  flag=$([ "$mode" = brief ] && echo --brief || true)
  "$old" pack --gpu a100-40gb --batch "$out/requests.txt" $flag > "$out/old.$mode" || true
  "$new" pack --gpu a100-40gb --batch "$out/requests.txt" $flag > "$out/new.$mode" || true
done
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
pick = lambda l: (l.get("feasible"), l.get("layout_count"), (l.get("reason") or {}).get("code"))
old = [pick(json.loads(l)) for l in open(f"{d}/old.json", encoding="utf-8", errors="replace")]
new = [pick(json.loads(l)) for l in open(f"{d}/new.json", encoding="utf-8", errors="replace")]
assert old == new, "the two binaries disagree on the JSON answers"
assert open(f"{d}/old.brief").read() == open(f"{d}/new.brief").read(), "--brief differs"
print(f"same answers on {len(old)} requests")
PY

hyperfine -N -i --runs "${RUNS:-15}" --warmup "${WARMUP:-3}" --export-json "$out/hyperfine.json" \
  -n old-json "$old pack --gpu a100-40gb --batch $out/requests.txt" \
  -n new-json "$new pack --gpu a100-40gb --batch $out/requests.txt" \
  -n old-brief "$old pack --gpu a100-40gb --batch $out/requests.txt --brief" \
  -n new-brief "$new pack --gpu a100-40gb --batch $out/requests.txt --brief" > "$out/hyperfine.txt"
python3 - "$out/hyperfine.json" "$n" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
for mode in ("json", "brief"):
    o, w = r[f"old-{mode}"], r[f"new-{mode}"]
    print(f"{mode:5}: old {o['mean']*1e3:8.1f} ms ± {o['stddev']*1e3:.1f}  "
          f"new {w['mean']*1e3:8.1f} ms ± {w['stddev']*1e3:.1f}  "
          f"new/old {w['mean']/o['mean']:.3f}  ({n / w['mean']:,.0f} req/s new)")
PY
echo "files in $out"
