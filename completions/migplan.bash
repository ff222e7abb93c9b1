# SPDX-License-Identifier: Apache-2.0
# bash completion for migplan: commands, options, GPU slugs, the profile names
# of the GPU on the line, check's --format values, pack's --emit kinds, and files. GPU slugs and
# profile names come from the migplan on PATH (`migplan gpus --json`,
# `migplan profiles --json`) when completing, so they follow its catalog.
# Installed as share/bash-completion/completions/migplan; from a source tree:
#   source completions/migplan.bash

# The slug of every model: the "id" of each entry of `gpus --json`, leaving out
# the "id" fields inside "pci_ids".
_migplan_gpu_slugs() {
  command migplan gpus --json 2>/dev/null | awk '
    /"pci_ids": \[/ { if ($0 !~ /\]/) in_pci = 1; next }
    in_pci { if ($0 ~ /^[[:space:]]*\]/) in_pci = 0; next }
    /^[[:space:]]*"id": "/ { sub(/^[[:space:]]*"id": "/, ""); sub(/".*/, ""); print }'
}

# The profile names of GPU $1 (of every model when $1 is empty): the "name" of
# each entry under "profiles" in `profiles --json`. A model entry starts with
# its "id", a string (a profile's "id" is a number), and its own "name" comes
# before its "profiles".
_migplan_profile_names() {
  if [[ -n $1 ]]; then
    command migplan profiles --gpu "$1" --json 2>/dev/null
  else
    command migplan profiles --json 2>/dev/null
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

  # The command: the first word that is not an option (migplan's own options
  # take no value).
  for ((i = 1; i < cword; i++)); do
    if [[ ${words[i]} != -* ]]; then
      cmd=${words[i]}
      break
    fi
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
    if [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W '-h --help --version' -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W 'pack enumerate fit gpus profiles check emit-config' -- "$cur")
    fi
    return 0
  fi

  local options value_options
  case $cmd in
    pack)
      options='-h --help -g --gpu -a --all --json --batch --current --index --emit --node --brief'
      value_options='-g --gpu --batch --current --index --emit --node'
      ;;
    enumerate)
      options='-h --help -g --gpu --maximal --json'
      value_options='-g --gpu'
      ;;
    fit)
      options='-h --help -g --gpu -m --memory --sms -k --count --json'
      value_options='-g --gpu -m --memory --sms -k --count'
      ;;
    gpus)
      options='-h --help --json'
      value_options=''
      ;;
    profiles)
      options='-h --help -g --gpu --json'
      value_options='-g --gpu'
      ;;
    check)
      options='-h --help --gpu -c --config --strict --format --max-errors -v --verbose'
      value_options='--gpu -c --config --format --max-errors'
      ;;
    emit-config)
      options='-h --help -g --gpu -o --output'
      value_options='-g --gpu -o --output'
      ;;
    *) return 0 ;;
  esac

  # The value of an option.
  if [[ -n $opt && " $value_options " == *" $opt "* ]]; then
    case $opt in
      -g | --gpu)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W "$(_migplan_gpu_slugs)" -- "$cur")
        ;;
      --format)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'text json github' -- "$cur")
        ;;
      --emit)
        mapfile -t COMPREPLY < <(compgen -P "$pfx" -W 'nvidia-smi nvml mig-parted k8s dra' -- "$cur")
        ;;
      -o | --output)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
      --batch | --current)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        [[ -z $cur || $cur == - ]] && COMPREPLY+=(-)
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
    pack)
      # [Nx]PROFILE[@START]: complete the profile after a count.
      local count=""
      [[ $cur =~ ^([0-9]+x) ]] && count=${BASH_REMATCH[1]}
      mapfile -t COMPREPLY < <(compgen -P "$count" -W "$(_migplan_profile_names "$gpu")" \
        -- "${cur#"$count"}")
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
