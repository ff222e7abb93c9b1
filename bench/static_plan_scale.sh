#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Is `simulate --static-plan` linear in the plan's groups? A fleet smaller
# than the plan takes its GPUs in an order (src/replay/trace_replay.cpp,
# subset_order) that used to cost the plan's GPUs times its groups (issue
# 38). Times one binary on plans of N and 4N one-instance groups, and on
# N/100 groups of 100000 GPUs each, all replayed on 1000 GPUs, in one
# hyperfine run, and prints time(4N) / time(N): about 4 is linear, 16
# quadratic. With OLD_BINARY, the old binary runs on the N plans too, for a
# before/after ratio measured in the same run.
#
#   bash bench/static_plan_scale.sh BINARY [N, default 5000] [OLD_BINARY]
#
# RUNS/WARMUP set hyperfine's --runs/--warmup (default 3/0); OUT=DIR keeps
# the files and hyperfine's export.
set -euo pipefail
bin=${1:?binary} n=${2:-5000} old=${3:-}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

python3 - "$out" "$n" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
gpu = {"id": "h100-80gb"}
mixes = [["1g.10gb"], ["2g.20gb"], ["3g.40gb"], ["1g.10gb", "1g.10gb"], ["4g.40gb"]]
starts = {"1g.10gb": [0, 1], "2g.20gb": [0], "3g.40gb": [4], "4g.40gb": [0]}
def group(i, count):
    mix = mixes[i % len(mixes)]
    return {"gpu": gpu, "count": count,
            "instances": [{"profile": p, "start": starts[p][k]} for k, p in enumerate(mix)]}
def plan(groups):
    return {"schema_version": 2, "groups": groups}
for name, k, count in [("one-n", n, 1), ("one-4n", 4 * n, 1),
                       ("wide-n", max(1, n // 100), 100000), ("wide-4n", max(1, 4 * n // 100), 100000)]:
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(plan([group(i, count) for i in range(k)]), f)
with open(f"{out}/trace.csv", "w") as f:
    f.write("name,start,end,count,item\n")
    for i, p in enumerate(["1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb"]):
        f.write(f"p{i},{i * 10},{i * 10 + 3600},200,{p}\n")
PY

cmd() {  # BINARY PLAN
  echo "$1 simulate --trace $out/trace.csv --gpu h100-80gb --policy static --gpus 1000 --static-plan $out/$2.json"
}
runs=(--command-name "one-instance groups, N=$n" "$(cmd "$bin" one-n)"
      --command-name "one-instance groups, 4N" "$(cmd "$bin" one-4n)"
      --command-name "groups of 100000 GPUs, N/100" "$(cmd "$bin" wide-n)"
      --command-name "groups of 100000 GPUs, 4N/100" "$(cmd "$bin" wide-4n)")
if [ -n "$old" ]; then
  runs+=(--command-name "old: one-instance groups, N=$n" "$(cmd "$old" one-n)"
         --command-name "old: groups of 100000 GPUs, N/100" "$(cmd "$old" wide-n)")
fi
hyperfine -N -i --runs "${RUNS:-3}" --warmup "${WARMUP:-0}" --export-json "$out/hyperfine.json" "${runs[@]}"
python3 - "$out/hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
names = list(r)
print(f"one-instance groups: time(4N)/time(N) = {r[names[1]] / r[names[0]]:.1f}")
print(f"groups of 100000 GPUs: time(4N)/time(N) = {r[names[3]] / r[names[2]]:.1f}")
if len(names) > 4:
    print(f"old/new at N: {r[names[4]] / r[names[0]]:.1f}x and {r[names[5]] / r[names[2]]:.1f}x")
PY
echo "files in $out"
