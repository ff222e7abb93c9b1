# SPDX-License-Identifier: Apache-2.0
# bash completion for migplan: commands, options, GPU slugs, the profile names
# of the GPU on the line, check's --format values, pack's, plan's and place's
# --emit kinds, simulate's and place's policies, simulate's plot metrics, and
# files. GPU slugs and profile names come from the migplan on PATH (`migplan gpus --json`,
# `migplan profiles --json`) when completing, so they follow its catalog.
# Installed as share/bash-completion/completions/migplan; from a source tree:
#   source completions/migplan.bash

# The slug of every model: the "id" of each entry of `gpus --json`, leaving out
# the "id" fields inside "pci_ids". Arguments: the line's --gpu-file options, so
# that the models of those files are offered too.
_migplan_gpu_slugs() {
  command migplan "$@" gpus --json 2>/dev/null | awk '
    /"pci_ids": \[/ { if ($0 !~ /\]/) in_pci = 1; next }
    in_pci { if ($0 ~ /^[[:space:]]*\]/) in_pci = 0; next }
    /^[[:space:]]*"id": "/ { sub(/^[[:space:]]*"id": "/, ""); sub(/".*/, ""); print }'
}

# The profile names of GPU $1 (of every model when $1 is empty): the "name" of
# each entry under "profiles" in `profiles --json`. A model entry starts with
# its "id", a string (a profile's "id" is a number), and its own "name" comes
# before its "profiles". Further arguments: the line's --gpu-file options.
_migplan_profile_names() {
  local gpu=$1
  shift
  if [[ -n $gpu ]]; then
    command migplan "$@" profiles --gpu "$gpu" --json 2>/dev/null
  else
    command migplan "$@" profiles --json 2>/dev/null
  fi | awk '
    /"id": "/ { in_profiles = 0 }
    /"profiles": \[/ { in_profiles = 1; next }
    in_profiles && /^[[:space:]]*"name": "/ {
      sub(/^[[:space:]]*"name": "/, ""); sub(/".*/, "")
      if (!seen[$0]++) print
    }'
}

_migplan() {
  local -a words=("${COMP_WORDS[@]}")
  local cword=$COMP_CWORD
  local cur=${words[cword]} opt="" pfx="" cmd="" gpu="" i w

  COMPREPLY=()

  # The option whose value is being completed, if any: bash splits --opt=value
  # into "--opt" "=" "value" when = is in COMP_WORDBREAKS (the default).
  if [[ $cur == = ]]; then
    opt=${words[cword - 1]}
    cur=""
  elif ((cword >= 2)) && [[ ${words[cword - 1]} == = ]]; then
    opt=${words[cword - 2]}
  elif [[ $cur == --*=* ]]; then
    opt=${cur%%=*}
    pfx=$opt=
    cur=${cur#*=}
  elif ((cword >= 1)); then
    opt=${words[cword - 1]}
  fi

  # The command: the first word that is not an option or the value of
  # migplan's own --gpu-file.
  for ((i = 1; i < cword; i++)); do
    if [[ ${words[i]} == --gpu-file ]]; then
      ((i++))
      [[ ${words[i]-} == = ]] && ((i++))
    elif [[ ${words[i]} != -* ]]; then
      cmd=${words[i]}
      break
    fi
  done

  # The model files on the line: their models are offered beside the built-in ones.
  local -a files=()
  for ((i = 1; i < ${#words[@]}; i++)); do
    ((i == cword)) && continue
    w=""
    case ${words[i]} in
      --gpu-file)
        w=${words[i + 1]-}
        [[ $w == = ]] && w=${words[i + 2]-}
        ;;
      --gpu-file=*) w=${words[i]#--gpu-file=} ;;
    esac
    w=${w#[\"\']}
    w=${w%[\"\']}
    [[ -n $w && $w != -* && $w != = ]] && files+=(--gpu-file "$w")
  done

  # The GPU named elsewhere on the line, for profile names.
  for ((i = 1; i < ${#words[@]}; i++)); do
    ((i == cword)) && continue
    w=${words[i]}
    case $w in
      -g | --gpu)
        w=${words[i + 1]-}
        [[ $w == = ]] && w=${words[i + 2]-}
        ;;
      --gpu=*) w=${w#--gpu=} ;;
      *) continue ;;
    esac
    w=${w#[\"\']}
    w=${w%[\"\']}
    [[ -n $w && $w != -* ]] && gpu=$w
  done

  if [[ -z $cmd ]]; then
    if [[ $opt == --gpu-file ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    elif [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W '-h --help --version --gpu-file' -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W 'pack plan simulate place enumerate fit gpus profiles check emit-config import' \
        -- "$cur")
    fi
    return 0
  fi

  local options value_options
  case $cmd in
    pack)
      options='-h --help -g --gpu -a --all --json --batch --current --index --emit --node --brief --plot --gpu-file'
      value_options='-g --gpu --batch --current --index --emit --node --plot --gpu-file'
      ;;
    plan)
      options='-h --help -g --gpu --demand --available --cost --fleet --current --mig-config --allow-evict --time-limit --json --full --emit --configmap-name --plot --gpu-file'
      value_options='-g --gpu --demand --available --cost --fleet --current --mig-config --time-limit --emit --configmap-name --plot --gpu-file'
      ;;
    simulate)
      options='-h --help --trace -g --gpu --fleet --static-plan --gpus --gpus-per-node --current --mig-config --policy --share --size --reject-target --queue --backfill --wait-target --reconfigure-seconds --create-seconds --keep-idle --json --plot --plot-metric --gpu-file'
      value_options='--trace -g --gpu --fleet --static-plan --gpus --gpus-per-node --current --mig-config --policy --share --reject-target --wait-target --reconfigure-seconds --create-seconds --keep-idle --plot --plot-metric --gpu-file'
      ;;
    place)
      options='-h --help --current --mig-config -g --gpu --policy --alternatives --allow-moves --json --emit --gpu-file'
      value_options='--current --mig-config -g --gpu --policy --alternatives --allow-moves --emit --gpu-file'
      ;;
    enumerate)
      options='-h --help -g --gpu --maximal --json --gpu-file'
      value_options='-g --gpu --gpu-file'
      ;;
    fit)
      options='-h --help -g --gpu -m --memory --sms -k --count --json --gpu-file'
      value_options='-g --gpu -m --memory --sms -k --count --gpu-file'
      ;;
    gpus)
      options='-h --help --json --gpu-file'
      value_options='--gpu-file'
      ;;
    profiles)
      options='-h --help -g --gpu --json --ci --gpu-file'
      value_options='-g --gpu --gpu-file'
      ;;
    check)
      options='-h --help -g --gpu -c --config --strict --format --json --max-errors -v --verbose --gpu-file'
      value_options='-g --gpu -c --config --format --max-errors --gpu-file'
      ;;
    import)
      options='-h --help --lgip --lgipp --name --description --pci-id --index -o --output --gpu-file'
      value_options='--lgip --lgipp --name --description --pci-id --index -o --output --gpu-file'
      ;;
    emit-config)
      options='-h --help -g --gpu -o --output --merge --configmap-name --strict --gpu-file'
      value_options='-g --gpu -o --output --merge --configmap-name --gpu-file'
      ;;
    *) return 0 ;;
  esac

  # The value of an option.
  if [[ -n $opt && " $value_options " == *" $opt "* ]]; then
    case $opt in
      -g | --gpu)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W "$(_migplan_gpu_slugs "${files[@]}")" \
          -- "$cur")
        ;;
      --format)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'text json github' -- "$cur")
        ;;
      --policy)
        if [[ $cmd == place ]]; then
          mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'spread-first-fit spread-best-fit pack-first-fit pack-best-fit' -- "$cur")
        else
          mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'static static-pack spread-first-fit spread-best-fit pack-first-fit pack-best-fit dra-first-fit hami replan: replan-oracle:' -- "$cur")
        fi
        ;;
      --share)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'compute memory' -- "$cur")
        ;;
      --plot-metric)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'slices gpus' -- "$cur")
        ;;
      --emit)
        if [[ $cmd == plan ]]; then
          mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'mig-parted configmap labels slurm' -- "$cur")
        elif [[ $cmd == place ]]; then
          mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'nvidia-smi' -- "$cur")
        else
          mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'nvidia-smi nvml mig-parted k8s dra slurm' -- "$cur")
        fi
        ;;
      --available | --cost)
        # MODEL=: the fleet's models (--gpu on the line), else every model.
        mapfile -t COMPREPLY < <(compgen -S = -W "$(_migplan_gpu_slugs "${files[@]}")" -- "$cur")
        compopt -o nospace 2>/dev/null
        ;;
      -o | --output)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
      --batch | --current | --lgip | --lgipp | --demand | --fleet | --mig-config | --trace | --plot)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        [[ -z $cur || $cur == - ]] && COMPREPLY+=(-)
        ;;
      --gpu-file | -o | --output)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
    esac
    # Other values (a size, a number, a config label) have no list.
    return 0
  fi

  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
    # check reads standard input from -.
    [[ $cmd == check && $cur == - ]] && COMPREPLY+=(-)
    return 0
  fi

  case $cmd in
    pack | plan | place)
      # [Nx]PROFILE[@START]: complete the profile after a count.
      local count=""
      [[ $cur =~ ^([0-9]+x) ]] && count=${BASH_REMATCH[1]}
      mapfile -t COMPREPLY < <(compgen -P "$count" \
        -W "$(_migplan_profile_names "$gpu" "${files[@]}")" -- "${cur#"$count"}")
      ;;
    check)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      [[ -z $cur ]] && COMPREPLY+=(-)
      ;;
    *)
      mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
      ;;
  esac
  return 0
}

complete -F _migplan migplan
