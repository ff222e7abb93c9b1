#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How long does `simulate --policy replan:6h` take on a long trace, and how
# much of it do the re-plans take (issue 39)? Generates N pods with
# gen_trace.py (seeded; offered load 0.9 of G GPUs), replays them queued
# on G GPUs under static, replan:6h and replan-oracle:6h, one policy per
# process, and prints each process's wall time and peak memory beside
# simulate's note on the re-plans (their count, their time in all and the
# longest).
#
#   bash bench/replan_scale.sh BINARY [N, default 100000] [G, default 32]
#
# OUT=DIR keeps the trace and the outputs.
set -euo pipefail
bin=${1:?binary} n=${2:-100000} gpus=${3:-32}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/gen_trace.py" --pods "$n" --gpus "$gpus" >"$out/trace.csv"
for policy in static replan:6h replan-oracle:6h; do
  name=${policy//:/_}
  /usr/bin/time -f "%e s wall, %M KiB peak" -o "$out/$name.time" \
    "$bin" simulate --trace "$out/trace.csv" --gpu h100-80gb --gpus "$gpus" --queue \
    --policy "$policy" --json >"$out/$name.json" 2>"$out/$name.err" || true
  note=$(grep -h 'note:' "$out/$name.err" || true)
  printf '%-18s %s %s\n' "$policy" "$(cat "$out/$name.time")" "${note#migplan: note: }"
done
echo "files in $out"
