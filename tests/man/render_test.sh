#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# render_test.sh build|render CMAKE SCDOC SOURCE_DIR: turns every
# doc/man/*.scd into roff the way the build does (doc/man/scdoc.cmake), and
#   build:  checks that scdoc accepts each page, without a message;
#   render: also checks that groff renders each page, every warning on
#           (-ww), without a message.
# Exits 77 (skipped) when scdoc (or, to render, groff) is not installed.
set -u
mode=$1
cmake=$2
scdoc=$3
src=$4

if [[ -z $scdoc || $scdoc == *NOTFOUND ]]; then
  scdoc=$(command -v scdoc || true)
fi
if [[ -z $scdoc ]]; then
  echo "SKIP: scdoc not found, the man pages are not built"
  exit 77
fi
if [[ $mode == render ]] && ! command -v groff >/dev/null 2>&1; then
  echo "SKIP: groff not found, the man pages are not rendered"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
for scd in "$src"/doc/man/*.scd; do
  page=$(basename "$scd" .scd)
  if ! msg=$("$cmake" -DSCDOC="$scdoc" -DSOURCE="$scd" -DPAGE="$work/$page" -DVERSION=0.0.0 \
    -P "$src/doc/man/scdoc.cmake" 2>&1) || [[ -n $msg ]]; then
    echo "FAIL: scdoc on $page.scd: $msg"
    failures=$((failures + 1))
    continue
  fi
  if [[ $mode == render ]]; then
    msg=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$work/$page" 2>&1)
    if [[ -n $msg ]]; then
      echo "FAIL: groff on $page: $msg"
      failures=$((failures + 1))
      continue
    fi
  fi
  echo "ok: $page"
done
if ((failures > 0)); then
  echo "$failures page(s) failed"
  exit 1
fi
