#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# data/gen_catalog.py --check: the checked-in header and driver_observations
# body pass; a copy laid out otherwise (another clang-format's indentation,
# line breaks, a string literal split in two) passes too; a copy with one
# value changed is stale. And driver_observations follows its captures: with
# two -lgi starts swapped in a copy of data/ the checked-in body is stale, and
# a capture whose instances overlap, or whose profile name disagrees with the
# JSON's, is refused (exit 2).
# Usage: gen_check_test.sh PYTHON3 SOURCE_DIR
set -u
py=$1
src=$2
header=$src/include/migplan/detail/catalog_data.hpp
obs=$src/include/migplan/detail/driver_observations.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # WANT_RC HEADER OBSERVATIONS WHAT [GENERATOR]
  "$py" "${5:-$src/data/gen_catalog.py}" --check --header "$2" --observations "$3" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" != "$1" ]; then
    echo "FAIL: $4: exit $rc, want $1"
    cat "$tmp/err"
    fail=1
  fi
}
check 0 "$header" "$obs" "the checked-in files"
sed -e 's/^\( *\)/\1\1/' -e 's/{$/{\n/' -e 's/"NVIDIA A30",/"NVIDIA "\n    "A30",/' \
  "$header" >"$tmp/relaid.hpp"
grep -q '^ *"A30",$' "$tmp/relaid.hpp" || { echo "FAIL: the test's split of a literal did not apply"; fail=1; }
check 0 "$tmp/relaid.hpp" "$obs" "the header laid out otherwise"
sed -e '0,/\.memory_mib = 40960/s//.memory_mib = 40961/' "$header" >"$tmp/value.hpp"
cmp -s "$header" "$tmp/value.hpp" && { echo "FAIL: the test's change of a value did not apply"; fail=1; }
check 1 "$tmp/value.hpp" "$obs" "a changed number"
sed -e 's/"NVIDIA A30",/"NVIDIA  A30",/' "$header" >"$tmp/text.hpp"
check 1 "$tmp/text.hpp" "$obs" "a changed string literal"

# driver_observations: laid out otherwise, one start changed (the H100 PCIe's
# 3g.40gb at 4, the first entry with starts {4, 0, 1, 2}).
sed -e 's/^ *//' -e 's/^{\.gpu/{\n.gpu/' "$obs" >"$tmp/relaid.inc"
cmp -s "$obs" "$tmp/relaid.inc" && { echo "FAIL: the test's relayout did not apply"; fail=1; }
check 0 "$header" "$tmp/relaid.inc" "driver_observations laid out otherwise"
sed -e '0,/\.starts = {4, 0, 1, 2}/s//.starts = {0, 0, 1, 2}/' "$obs" >"$tmp/start.inc"
cmp -s "$obs" "$tmp/start.inc" && { echo "FAIL: the test's change of a start did not apply"; fail=1; }
check 1 "$header" "$tmp/start.inc" "a changed start"

# A copy of data/ whose capture says otherwise.
mkdir -p "$tmp/repo"
cp -r "$src/data" "$tmp/repo/data"
gen=$tmp/repo/data/gen_catalog.py
check 0 "$header" "$obs" "the copy of data/" "$gen"
lgi=$tmp/repo/data/captures/h100-pcie-lgi.txt
# Instances 7 and 8 (the first two 1g.10gb) swap places: 1:1 and 0:1.
sed -i -e 's/\(MIG 1g.10gb  *19  *7  *\)0:1/\1X:1/' -e 's/\(MIG 1g.10gb  *19  *8  *\)1:1/\10:1/' \
  -e 's/X:1/1:1/' "$lgi"
grep -q 'MIG 1g.10gb  *19  *7  *1:1' "$lgi" || { echo "FAIL: the test's change of a capture did not apply"; fail=1; }
check 1 "$header" "$obs" "a capture with other starts" "$gen"
# The 3g.40gb moved onto the 1g instances: not a layout.
cp "$src/data/captures/h100-pcie-lgi.txt" "$lgi"
sed -i -e 's/\(MIG 3g.40gb  *9  *2  *\)4:4/\10:4/' "$lgi"
check 2 "$header" "$obs" "a capture with overlapping instances" "$gen"
grep -q "3g.40gb at 0:4 overlaps another instance" "$tmp/err" || { echo "FAIL: no message naming the overlap"; cat "$tmp/err"; fail=1; }
cp "$src/data/captures/h100-pcie-lgi.txt" "$lgi"
sed -i -e 's/MIG 1g.10gb (ID 19)/MIG 2g.20gb (ID 19)/' "$tmp/repo/data/captures/h100-pcie-cgi.txt"
check 2 "$header" "$obs" "a capture naming another profile" "$gen"
grep -q "profile ID 19 is 1g.10gb on h100-pcie" "$tmp/err" || { echo "FAIL: no message naming the profile"; cat "$tmp/err"; fail=1; }
exit $fail
