#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# syntax_test.sh SHELL SCRIPT: SHELL -n parses SCRIPT without running it.
# Exits 77 (skipped) when SHELL is not installed.
set -u
shell=$1
script=$2
# The README's install command leaves zsh and fish out (.ci/run installs
# them): there the zsh and fish runs skip, as the README says.
if ! command -v "$shell" >/dev/null 2>&1; then
  echo "SKIP: $shell not found, $script is not parsed"
  exit 77
fi
"$shell" -n "$script" || {
  echo "FAIL: $shell -n $script"
  exit 1
}
echo "ok: $shell -n $script"
