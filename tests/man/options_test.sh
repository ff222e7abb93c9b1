#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# options_test.sh man|completion BINARY SOURCE_DIR: every command and option
# that `migplan --help` and `migplan COMMAND --help` print is documented.
#   man:        every command has doc/man/migplan-COMMAND.1.scd (built by
#               doc/man/CMakeLists.txt) and is listed under COMMANDS, with its
#               page, in doc/man/migplan.1.scd; every option of a command is a
#               term (a line starting with *) of the OPTIONS section of its
#               page, and every option such a term names exists; migplan's own
#               options are terms of migplan.1.scd's OPTIONS.
#   completion: every command and each of its options is completed by
#               completions/migplan.bash, completions/_migplan and
#               completions/migplan.fish, in that command's part of each.
# So a command or option added without its man page or completions fails here.
set -u
mode=$1
bin=$2
src=$3

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# The options a --help text lists: the first field of each option line
# ("  -g,--gpu TEXT ...", "  --json ..."), split at the comma.
help_options() {
  "$bin" "$@" --help | awk '/^  -/ { print $1 }' | tr ',' '\n'
}

commands=$("$bin" --help | awk '/^Subcommands:/ { s = 1; next } s && /^$/ { s = 0 } s && /^  [a-z]/ { print $1 }')
if [[ -z $commands ]]; then
  echo "FAIL: no commands found in 'migplan --help'"
  exit 1
fi

# The terms of a section of a page: its lines that start with *.
section_terms() {
  awk -v h="# $2" '/^# / { s = ($0 == h) } s && /^\*/' "$1"
}

# word_in TEXT WORD: WORD occurs in TEXT as a whole option-like word.
word_in() {
  grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)" <<<"$1"
}

check_man() {
  local dir=$src/doc/man main=$src/doc/man/migplan.1.scd page terms opt cmd
  [[ -f $main ]] || fail "doc/man/migplan.1.scd is missing"
  for opt in $(help_options); do
    section_terms "$main" OPTIONS | grep -qF -- "*$opt*" ||
      fail "migplan.1.scd does not document migplan's option $opt"
  done
  for cmd in $commands; do
    page=$dir/migplan-$cmd.1.scd
    section_terms "$main" COMMANDS | grep -qE "^\*$cmd\*" ||
      fail "migplan.1.scd does not list the command $cmd under COMMANDS"
    grep -qF "*migplan-$cmd*(1)" "$main" || fail "migplan.1.scd does not refer to migplan-$cmd(1)"
    if [[ ! -f $page ]]; then
      fail "command $cmd has no man page doc/man/migplan-$cmd.1.scd"
      continue
    fi
    head -n 1 "$page" | grep -qE "^migplan-$cmd\(1\)" ||
      fail "migplan-$cmd.1.scd does not start with migplan-$cmd(1)"
    grep -qE "^[[:space:]]*migplan-$cmd\.1$" "$dir/CMakeLists.txt" ||
      fail "doc/man/CMakeLists.txt does not build migplan-$cmd.1"
    local options
    options=$(help_options "$cmd")
    terms=$(section_terms "$page" OPTIONS)
    for opt in $options; do
      grep -qF -- "*$opt*" <<<"$terms" ||
        fail "migplan-$cmd.1.scd does not document $opt (no term *$opt* in its OPTIONS)"
    done
    # The reverse: an option the page documents that the command no longer has.
    for opt in $(grep -oE '\*-[-A-Za-z0-9]+\*' <<<"$terms" | tr -d '*'); do
      grep -qxF -- "$opt" <<<"$options" ||
        fail "migplan-$cmd.1.scd documents $opt, which 'migplan $cmd --help' does not list"
    done
  done
  # Every page is a command's (or migplan's own).
  for page in "$dir"/*.scd; do
    page=$(basename "$page" .1.scd)
    [[ $page == migplan ]] && continue
    word_in "$commands" "${page#migplan-}" || fail "doc/man/$page.1.scd documents no command"
  done
}

# The part of a completion script that deals with one command.
script_part() {
  local shell=$1 cmd=$2
  case $shell in
    bash) # the "CMD)" branches of its case statements, up to ";;"
      awk -v c="$cmd" '$0 ~ "^[[:space:]]*" c "\\)[[:space:]]*$" { p = 1 } p { print } p && /;;/ { p = 0 }' \
        "$src/completions/migplan.bash" ;;
    zsh) # the "(CMD)" branch
      awk -v c="$cmd" '$0 ~ "^[[:space:]]*\\(" c "\\)[[:space:]]*$" { p = 1 } p { print } p && /;;/ { p = 0 }' \
        "$src/completions/_migplan" ;;
    fish) # the lines for CMD, and the loop over every command (-h/--help)
      grep -E -e "__fish_seen_subcommand_from $cmd[';]" -e '__fish_seen_subcommand_from \$cmd"' \
        "$src/completions/migplan.fish" ;;
  esac
}

check_completion() {
  local shell file cmd part opt
  for shell in bash zsh fish; do
    case $shell in
      bash) file=$src/completions/migplan.bash ;;
      zsh) file=$src/completions/_migplan ;;
      fish) file=$src/completions/migplan.fish ;;
    esac
    [[ -f $file ]] || {
      fail "$file is missing"
      continue
    }
    for cmd in $commands; do
      case $shell in
        bash) grep -qE "compgen -W '([^']* )?$cmd( [^']*)?'" "$file" ;;
        zsh) grep -qE "^[[:space:]]*'$cmd:" "$file" ;;
        fish) grep -E -- "not __fish_seen_subcommand_from" "$file" | grep -qE -- "-a $cmd( |$)" ;;
      esac || fail "$(basename "$file") does not complete the command $cmd"
      part=$(script_part "$shell" "$cmd")
      if [[ -z $part ]]; then
        fail "$(basename "$file") has no part for the command $cmd"
        continue
      fi
      for opt in $(help_options "$cmd"); do
        case $shell:$opt in
          zsh:-h | zsh:--help) grep -qE -- "help=\\(.*\\{-h,--help\\}" "$file" ;;
          fish:--*) grep -qE -- "-l ${opt#--}( |$)" <<<"$part" ;;
          fish:-*) grep -qE -- "-s ${opt#-}( |$)" <<<"$part" ;;
          *) word_in "$part" "$opt" ;;
        esac || fail "$(basename "$file") does not complete $opt for $cmd"
      done
    done
  done
}

case $mode in
  man) check_man ;;
  completion) check_completion ;;
  *)
    echo "usage: $0 man|completion BINARY SOURCE_DIR"
    exit 2
    ;;
esac

if ((failures > 0)); then
  echo "$failures problem(s)"
  exit 1
fi
echo "ok: every command and option of migplan --help is in the ${mode} files"
