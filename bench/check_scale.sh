#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Is `migplan check` linear? Times one binary on generated files of N and 4N
# units of each shape that used to be quadratic (issue 8), in one hyperfine
# run, and prints time(4N) / time(N) for each: about 4 is linear (a little
# less, since process start-up does not grow), 16 would be quadratic. Also
# the peak memory of each run (GNU time), and the diagnostics' size.
#
#   bash bench/check_scale.sh BINARY [N, default 10000] [OLD_BINARY]
#
# Shapes: `labels` (a mig-parted config of N labels, one entry each),
# `unknown-keys` (one entry with N misspelt fields: N errors, capped by
# --max-errors), `entries` (one label of N entries, each a distinct device
# index and filter), `geometry` (a geometry file of N gpus). With OLD_BINARY,
# both binaries run on the N files too, for a before/after ratio.
# RUNS/WARMUP set hyperfine's --runs/--warmup (default 5/1); OUT=DIR keeps
# the files and hyperfine's exports.
set -euo pipefail
bin=${1:?binary} n=${2:-10000} old=${3:-}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

python3 - "$out" "$n" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
profiles = ["1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"]
def labels(k):
    rows = ["version: v1", "mig-configs:"]
    for i in range(k):
        p = profiles[i % len(profiles)]
        rows += [f"  cfg-{i}:", "    - devices: all", "      mig-enabled: true",
                 f"      mig-devices: {{\"{p}\": 1}}"]
    return rows
def unknown_keys(k):
    rows = ["version: v1", "mig-configs:", "  one:", "    - devices: all",
            "      mig-enabled: true", "      mig-devices: {}"]
    rows += [f"      misspelt-{i}: 1" for i in range(k)]
    return rows
def entries(k):
    rows = ["version: v1", "mig-configs:", "  many:"]
    for i in range(k):
        rows += [f"    - devices: [{i}]", "      device-filter: \"0x233010DE\"",
                 "      mig-enabled: true", "      mig-devices: {\"1g.10gb\": 7}"]
    return rows
def geometry(k):
    rows = ["version: 1", "gpus:"]
    for i in range(k):
        rows += [f"  - model: h100-80gb", f"    index: {i}",
                 f"    instances: [3g.40gb, 2g.20gb, 1g.10gb]"]
    return rows
for name, make in [("labels", labels), ("unknown-keys", unknown_keys),
                   ("entries", entries), ("geometry", geometry)]:
    for k, tag in [(n, "n"), (4 * n, "4n")]:
        with open(f"{out}/{name}.{tag}.yaml", "w") as f:
            f.write("\n".join(make(k)) + "\n")
PY

shapes="labels unknown-keys entries geometry"
echo "files (N = $n):"
for s in $shapes; do
  printf '  %-13s %9s bytes (N) %10s bytes (4N)\n' "$s" \
    "$(wc -c < "$out/$s.n.yaml")" "$(wc -c < "$out/$s.4n.yaml")"
done

echo "peak memory and diagnostics (GNU time; exit 1 is expected where a file is invalid):"
for s in $shapes; do
  for t in n 4n; do
    /usr/bin/time -f '%M' -o "$out/rss" "$bin" check "$out/$s.$t.yaml" 2> "$out/err" || true
    printf '  %-13s %-3s %8s KiB peak, %8s bytes of stderr\n' "$s" "$t" \
      "$(tail -n 1 "$out/rss")" "$(wc -c < "$out/err")"
  done
done

args=()
for s in $shapes; do
  args+=(-n "$s.n" "$bin check $out/$s.n.yaml" -n "$s.4n" "$bin check $out/$s.4n.yaml")
  if [ -n "$old" ]; then args+=(-n "$s.n.old" "$old check $out/$s.n.yaml"); fi
done
hyperfine -N -i --runs "${RUNS:-5}" --warmup "${WARMUP:-1}" --export-json "$out/hyperfine.json" \
  "${args[@]}" > "$out/hyperfine.txt"

python3 - "$out/hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print("time(4N) / time(N): about 4 is linear, 16 quadratic")
for s in ["labels", "unknown-keys", "entries", "geometry"]:
    line = f"  {s:13s} {r[s + '.n']*1e3:9.1f} ms -> {r[s + '.4n']*1e3:9.1f} ms  ratio {r[s + '.4n']/r[s + '.n']:.2f}"
    if s + ".n.old" in r:
        line += f"   old/new on N: {r[s + '.n.old']/r[s + '.n']:.2f}"
    print(line)
PY
echo "files and hyperfine exports: $out"
