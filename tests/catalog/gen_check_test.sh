#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# data/gen_catalog.py --check: the checked-in header passes; a copy laid out
# otherwise (another clang-format's indentation, line breaks, a string
# literal split in two) passes too; a copy with one value changed is stale.
# Usage: gen_check_test.sh PYTHON3 SOURCE_DIR
set -u
py=$1
src=$2
header=$src/include/migplan/detail/catalog_data.hpp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # WANT_RC FILE WHAT
  "$py" "$src/data/gen_catalog.py" --check --header "$2" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" != "$1" ]; then
    echo "FAIL: $3: exit $rc, want $1"
    cat "$tmp/err"
    fail=1
  fi
}
check 0 "$header" "the checked-in header"
sed -e 's/^\( *\)/\1\1/' -e 's/{$/{\n/' -e 's/"NVIDIA A30",/"NVIDIA "\n    "A30",/' \
  "$header" >"$tmp/relaid.hpp"
grep -q '^ *"A30",$' "$tmp/relaid.hpp" || { echo "FAIL: the test's split of a literal did not apply"; fail=1; }
check 0 "$tmp/relaid.hpp" "the header laid out otherwise"
sed -e '0,/\.memory_mib = 40960/s//.memory_mib = 40961/' "$header" >"$tmp/value.hpp"
cmp -s "$header" "$tmp/value.hpp" && { echo "FAIL: the test's change of a value did not apply"; fail=1; }
check 1 "$tmp/value.hpp" "a changed number"
sed -e 's/"NVIDIA A30",/"NVIDIA  A30",/' "$header" >"$tmp/text.hpp"
check 1 "$tmp/text.hpp" "a changed string literal"
exit $fail
