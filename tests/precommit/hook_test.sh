#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hook_test.sh SOURCE_DIR [BINARY_DIR]: tests .pre-commit-hooks.yaml with Debian's
# pre-commit, offline. The hook definition is committed to a scratch hook
# repository; `pre-commit try-repo` runs it in a scratch repository holding a
# valid geometry file, a valid ConfigMap manifest, a GitHub workflow (hidden,
# left out) and an invalid mig-parted config, with the `migplan` on PATH. The
# hook must pass the valid files and fail the invalid one with its
# file:line:col diagnostic. BINARY_DIR, when
# given, goes first on PATH. Exits 77 (skipped) when pre-commit or git is
# missing.
set -euo pipefail
src=$(cd "$1" && pwd)
if (($# > 1)); then PATH="$(cd "$2" && pwd):$PATH"; fi
for tool in pre-commit git migplan; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool on PATH"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# pre-commit's store (and git's identity) stay inside the scratch directory.
export PRE_COMMIT_HOME=$work/store HOME=$work
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
git() { command git -c init.defaultBranch=main -c commit.gpgsign=false "$@"; }

mkdir "$work/hooks"
cp "$src/.pre-commit-hooks.yaml" "$work/hooks/"
(cd "$work/hooks" && git init -q && git add . && git commit -qm hooks)

mkdir "$work/repo" && cd "$work/repo" && git init -q
cat >valid.yaml <<'YAML'
version: 1
gpus:
  - model: a100-40gb
    instances: [4g.20gb, 2g.10gb, 1g.5gb]
YAML
cat >configmap.yaml <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: custom-mig-config
data:
  config.yaml: |
    version: v1
    mig-configs:
      inference:
        - devices: all
          mig-enabled: true
          mig-devices:
            "3g.40gb": 2
YAML
cat >invalid.yaml <<'YAML'
version: v1
mig-configs:
  too-many:
    - devices: all
      device-filter: "0x233010DE"
      mig-enabled: true
      mig-devices:
        "3g.40gb": 3
YAML
# Hidden paths are left out by the hook, as `migplan check DIR` leaves them.
mkdir -p .github/workflows
printf 'name: ci\non: push\njobs: {}\n' >.github/workflows/ci.yml
git add .

run() {  # run FILE...: the hook on these files; sets rc and out
  set +e
  out=$(pre-commit try-repo "$work/hooks" migplan-check --files "$@" 2>&1)
  rc=$?
  set -e
}
failures=0
fail() { echo "FAIL: $*"; echo "$out" | sed 's/^/  > /'; failures=$((failures + 1)); }

run valid.yaml configmap.yaml .github/workflows/ci.yml
((rc == 0)) || fail "the hook did not pass valid.yaml and configmap.yaml (exit $rc)"
grep -q 'Passed' <<<"$out" || fail "no 'Passed' for the valid files"

run invalid.yaml
((rc == 1)) || fail "the hook did not fail invalid.yaml (exit $rc)"
grep -q '^invalid\.yaml:8:[0-9]*: error: .*3g\.40gb' <<<"$out" ||
  fail "no invalid.yaml:8:COL diagnostic naming 3g.40gb"

if ((failures > 0)); then exit 1; fi
echo "ok: the hook passes the valid files and fails invalid.yaml at its line"
