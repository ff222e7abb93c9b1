#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# complete_test.sh SHELL SOURCE_DIR BINARY_DIR: runs the completion script of
# SHELL (bash, zsh or fish) from SOURCE_DIR/completions on partial command
# lines and checks the candidates it offers, with the built migplan first on
# PATH (GPU slugs and profile names come from it). Exits 77 (skipped) when
# SHELL is not installed.
set -u
shell=$1
src=$2
bindir=$3

# The README's install command leaves zsh and fish out (.ci/run installs
# them): there the zsh and fish runs skip, as the README says.
if ! command -v "$shell" >/dev/null 2>&1; then
  echo "SKIP: $shell not found, its completion is not checked"
  exit 77
fi
export PATH="$bindir:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# zsh's compinit scans fpath once and keeps the result here (zsh_capture.zsh).
export ZSH_CAPTURE_DUMP="$work/zcompdump"
# A directory to complete file names in.
mkdir "$work/configs"
: >"$work/fleet.yaml"
cd "$work" || exit 1

# Prints the candidates for LINE, one per line, sorted. The line is split as
# readline splits it for bash: at blanks, and = (in COMP_WORDBREAKS) as a
# word of its own.
candidates() {
  local line=$1
  case $shell in
    bash)
      bash --norc --noprofile -c '
        source "$1/completions/migplan.bash"
        line=$2
        words=()
        read -ra tokens <<<"$line"
        for t in "${tokens[@]}"; do
          while [[ $t == *=* ]]; do
            [[ -n ${t%%=*} ]] && words+=("${t%%=*}")
            words+=("=")
            t=${t#*=}
          done
          [[ -n $t ]] && words+=("$t")
        done
        [[ $line == *" " ]] && words+=("")
        COMP_WORDS=("${words[@]}")
        COMP_CWORD=$((${#words[@]} - 1))
        COMP_LINE=$line
        COMP_POINT=${#line}
        _migplan migplan "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' bash "$src" "$line"
      ;;
    zsh)
      timeout 60 zsh -f "$src/tests/completion/zsh_capture.zsh" "$src/completions" "$line"
      local rc=$?
      ((rc == 77)) && exit 77
      ((rc != 0)) && echo "zsh_capture failed ($rc)" >&2
      ;;
    fish)
      fish --no-config -c 'source $argv[1]/completions/migplan.fish; complete -C $argv[2]' \
        "$src" "$line" | cut -f1
      ;;
  esac | grep -v '^$' | sort -u
}

failures=0
# expect LINE CANDIDATE...: the candidates for LINE are exactly these.
expect() {
  local line=$1
  shift
  local got want
  got=$(candidates "$line")
  want=$(printf '%s\n' "$@" | sort -u)
  if [[ $got == "$want" ]]; then
    echo "ok   '$line' -> $(echo $got)"
  else
    echo "FAIL '$line'"
    echo "     want: $(echo $want)"
    echo "     got:  $(echo $got)"
    failures=$((failures + 1))
  fi
}

expect 'migplan pa' pack
expect 'migplan pl' place plan
expect 'migplan pla' place plan
expect 'migplan plac' place
expect 'migplan ' pack plan simulate place enumerate fit gpus profiles check emit-config import
expect 'migplan emit' emit-config
expect 'migplan pack --emit ' nvidia-smi nvml mig-parted k8s dra slurm
expect 'migplan pack --emit m' mig-parted
expect 'migplan emit-config --gpu a10' a100-40gb a100-80gb
expect 'migplan import --lg' --lgip --lgipp
# Models of the model files on the line are offered too, the file given
# before or after the command.
model=$src/examples/model.json
expect "migplan --gpu-file $model pack --gpu exa" example-4u
expect "migplan pack --gpu-file $model --gpu example-4u 2g." 2g.22gb
expect "migplan profiles --gpu exa" # without the file, no such model
expect 'migplan pack --g' --gpu --gpu-file
expect 'migplan pack --gpu a10' a100-40gb a100-80gb
expect 'migplan enumerate -g a10' a100-40gb a100-80gb
expect 'migplan check --gpu h100-p' h100-pcie
expect 'migplan pack --gpu h100-80gb 3g.' 3g.40gb
expect 'migplan pack -g h100-80gb 7' 7g.80gb
expect 'migplan pack --gpu a30 3g.' # a30 has no 3g profile
expect 'migplan pack --gpu=h100-80gb 4g' 4g.40gb
expect 'migplan check --format ' text json github
expect 'migplan check fl' fleet.yaml
expect 'migplan fit --m' --memory
expect 'migplan plan --emit ' mig-parted configmap labels slurm
expect 'migplan plan --gpu a10' a100-40gb a100-80gb
expect 'migplan plan --gpu h100-80gb 3g.' 3g.40gb
expect 'migplan plan --mi' --mig-config
expect 'migplan plan --al' --allow-evict
expect 'migplan plan --con' --configmap-name
expect 'migplan simulate --policy pack-' pack-best-fit pack-first-fit
expect 'migplan simulate --plot-metric ' gpus slices
expect 'migplan simulate --gpus-' --gpus-per-node
expect 'migplan simulate --gpu h100-8' h100-80gb
expect 'migplan simulate --mig-' --mig-config
expect 'migplan simulate --fle' --fleet
expect 'migplan simulate --static-' --static-plan
expect 'migplan place --policy spread-' spread-best-fit spread-first-fit
expect 'migplan place --emit ' nvidia-smi
expect 'migplan place --al' --allow-moves --alternatives
case $shell in
  bash)
    # bash and fish complete the whole word; zsh moves the count aside.
    expect 'migplan pack --gpu h100-80gb 2x3g.' 2x3g.40gb
    expect 'migplan check --format=j' json
    expect 'migplan pack --batch f' fleet.yaml
    ;;
  zsh)
    expect 'migplan pack --gpu h100-80gb 2x3g.' 3g.40gb
    expect 'migplan check --format=j' json
    ;;
  fish)
    expect 'migplan pack --gpu h100-80gb 2x3g.' 2x3g.40gb
    expect 'migplan check --format=j' --format=json
    expect 'migplan pack --batch f' fleet.yaml
    ;;
esac

if ((failures > 0)); then
  echo "$failures $shell completion case(s) failed"
  exit 1
fi
