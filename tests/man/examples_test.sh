#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# examples_test.sh BINARY_DIR SOURCE_DIR [man|readme [PAGE...]]: runs
# documented examples with bash (pipefail on), the built migplan first on
# PATH.
#
# man (the default): every example of the man pages (each literal block of
# doc/man/*.scd that starts with "$ ": its "$ " lines, with their
# here-documents and |-continued lines; output lines are left out), in an
# empty directory, checking that each command exits 0 or 1 (an answer), never
# 2 (bad input or usage) or worse.
#
# readme: every ```console block of each PAGE (paths under SOURCE_DIR;
# README.md when none is given), and each PAGE must hold one: each "$ " line
# is a command and the lines up to the next "$ " line or the block's end are
# its expected output (stdout and stderr together); a line "..." stands for
# any number of lines. The commands run in a directory where data/ and
# examples/ are the source tree's. A difference is shown as a diff: paste the
# new output into the page to refresh an example. Besides, every relative
# link of README.md and doc/*.md ("](path)" or "](path#anchor)") must name a
# file or folder that exists.
set -u
bindir=$(cd "$1" && pwd) || exit 1
src=$(cd "$2" && pwd) || exit 1
mode=${3:-man}
shift $(($# < 3 ? $# : 3))
pages=("$@")
((${#pages[@]} > 0)) || pages=(README.md)
export PATH="$bindir:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# summary WHERE WHAT OK: the verdict over count examples with failures.
summary() {
  if ((count == 0)); then
    echo "FAIL: no examples found in $1"
    exit 1
  fi
  if ((failures > 0)); then
    echo "$failures of $count $2"
    exit 1
  fi
  echo "ok: $count $3"
  exit 0
}

if [[ $mode == readme ]]; then
  ln -s "$src/data" data && ln -s "$src/examples" examples || exit 1
  failures=0
  count=0
  # The tour runs `migplan` from PATH, as these tests do: the install command
  # must put it there (cmake --install) and then run it by that name.
  install=$(grep -m 1 -E '^\$\(command -v sudo\) apt-get update' "$src/README.md")
  if [[ $install != *'&& $(command -v sudo) cmake --install build/release && migplan '* ]]; then
    echo "FAIL: README.md's install command does not end with" \
      "'\$(command -v sudo) cmake --install build/release && migplan ...':" \
      "the tour's migplan would not be on PATH"
    failures=$((failures + 1))
  fi
  for page in "${pages[@]}"; do
    before=$count
    # One NUL-terminated command, then its NUL-terminated expected output.
    while IFS= read -r -d '' command && IFS= read -r -d '' expected; do
      count=$((count + 1))
      actual=$(bash -o pipefail -c "$command" 2>&1)
      printf '%s\n' "$expected" >expected.txt
      printf '%s\n' "$actual" >actual.txt
      # Match the expected lines against the actual ones, a "..." line
      # matching any run of lines: each stretch between "..." lines is
      # found, in order, at its earliest place (the first at the start, the
      # last at the end).
      if ! awk '
        function at(p, i, len,   k) {  # expected lines i.. equal actual lines p..
          if (p < 1 || p + len - 1 > na) return 0
          for (k = 0; k < len; k++) if (a[p + k] != e[i + k]) return 0
          return 1
        }
        NR == FNR { e[++ne] = $0; if ($0 == "...") dots[++m] = ne; next }
        { a[++na] = $0 }
        END {
          if (!m) exit !(ne == na && at(1, 1, ne))
          # The stretch before the first "..." starts the output, the one after
          # the last ends it, and those between are found in order, each at
          # its earliest place after the one before.
          head = dots[1] - 1; tail = ne - dots[m]
          if (!at(1, 1, head) || !at(na - tail + 1, dots[m] + 1, tail)) exit 1
          pos = head + 1; end = na - tail
          for (d = 1; d < m; d++) {
            i = dots[d] + 1; len = dots[d + 1] - i
            for (p = pos; p + len - 1 <= end && !at(p, i, len); p++) {}
            if (p + len - 1 > end) exit 1
            pos = p + len
          }
          if (pos - 1 > end) exit 1
        }' expected.txt actual.txt; then
        echo "FAIL: $page: \$ $command"
        diff -u --label expected --label actual expected.txt actual.txt
        failures=$((failures + 1))
      fi
    done < <(awk '
      /^```console$/ { in_block = 1; have = 0; next }
      in_block && /^```$/ {
        if (have) printf "%s%c%s%c", cmd, 0, out, 0
        in_block = 0; next
      }
      in_block && /^\$ / {
        if (have) printf "%s%c%s%c", cmd, 0, out, 0
        cmd = substr($0, 3); out = ""; have = 1; first = 1; next
      }
      in_block && have { out = first ? $0 : out "\n" $0; first = 0 }' "$src/$page")
    if ((count == before)); then
      echo "FAIL: no console example in $page"
      failures=$((failures + 1))
    fi
  done
  # Relative links of the front door and the guides name what exists.
  for path in "$src"/README.md "$src"/doc/*.md; do
    page=${path#"$src"/}
    while IFS= read -r target; do
      target=${target%%#*}
      [[ -z $target || $target == *://* || $target == mailto:* ]] && continue
      if [[ ! -e $src/$(dirname "$page")/$target ]]; then
        echo "FAIL: $page links to $target, which does not exist"
        failures=$((failures + 1))
      fi
    done < <(grep -o '](\([^) ]*\))' "$path" | sed 's/^](//; s/)$//')
  done
  summary "${pages[*]}" "examples differ (or links are broken)" \
    "examples, each printing what its page shows (${pages[*]}); links resolve"
fi

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
        heredoc = line ~ /<<\047?EOF\047?$/
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

summary "doc/man/*.scd" "examples failed" "examples, each exits 0 or 1"
