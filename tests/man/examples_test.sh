#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# examples_test.sh BINARY_DIR SOURCE_DIR: runs every example of the man pages
# (each literal block of doc/man/*.scd that starts with "$ ": its "$ " lines,
# with their here-documents and |-continued lines; output lines are left out)
# with bash (pipefail on) in an empty directory, the built migplan first on
# PATH, and checks that each command exits 0 or 1 (an answer), never 2 (bad
# input or usage) or worse.
set -u
bindir=$1
src=$2
export PATH="$bindir:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

failures=0
count=0
for scd in "$src"/doc/man/*.scd; do
  # One example per NUL-terminated record; scdoc's \\ is a backslash.
  while IFS= read -r -d '' example; do
    count=$((count + 1))
    out=$(bash -o pipefail -c "$example" 2>&1)
    rc=$?
    if ((rc != 0 && rc != 1)); then
      echo "FAIL: $(basename "$scd"): exit $rc from:"
      echo "$example" | sed 's/^/    /'
      echo "$out" | head -n 5 | sed 's/^/  > /'
      failures=$((failures + 1))
    fi
  done < <(awk -v check=' || { r=$?; [ $r -eq 1 ] || exit $r; }' '
    /^```$/ {
      if (!in_block) { in_block = 1; first = 1; text = ""; next }
      in_block = 0
      if (text != "") printf "%s%c", text, 0
      next
    }
    in_block {
      if (first && $0 !~ /^\$ /) { in_block = 2 }
      first = 0
      if (in_block != 1) next
      line = $0
      gsub(/\\\\/, "\\", line)
      # Each command is followed by a check of its exit status: at the end
      # of its first line when a here-document follows, else of its last.
      if (line ~ /^\$ /) {
        line = substr(line, 3)
        heredoc = line ~ /<<EOF$/
        cont = line ~ /\|$/
        if (!cont) line = line check
      } else if (heredoc) {
        if (line == "EOF") heredoc = 0
      } else if (cont) {
        cont = line ~ /\|$/
        if (!cont) line = line check
      } else {
        next
      }
      text = text line "\n"
    }' "$scd")
done

if ((count == 0)); then
  echo "FAIL: no examples found in doc/man/*.scd"
  exit 1
fi
if ((failures > 0)); then
  echo "$failures of $count examples failed"
  exit 1
fi
echo "ok: $count examples, each exits 0 or 1"
