# SPDX-License-Identifier: Apache-2.0
# zsh -f zsh_capture.zsh COMPDIR LINE: prints, one per line, every candidate
# zsh's completion system (compinit, with COMPDIR first on fpath) offers for
# the command line LINE, as typed at an interactive prompt and then TAB.
# Candidates are caught by wrapping compadd; a completion that adds text before
# the candidates (compset -P) leaves that text out. Exits 77 without zpty.
emulate -L zsh
zmodload zsh/zpty 2>/dev/null || { print -u2 "SKIP: zsh has no zsh/zpty module"; exit 77 }
compdir=$1
line=$2

zpty z zsh -f -i
# The markers are written split ('<<RE''ADY>>') so that the terminal's echo of
# the command does not match them; only the output of print does.
# With ZSH_CAPTURE_DUMP set, compinit keeps its scan of fpath in that file:
# the first capture writes it, the others read it instead of scanning again.
if [[ -n ${ZSH_CAPTURE_DUMP:-} ]]; then
  zpty -w z "RPS1=''; fpath=(${(q)compdir} \$fpath); autoload -U compinit; compinit -u -d ${(q)ZSH_CAPTURE_DUMP}"
else
  zpty -w z "RPS1=''; fpath=(${(q)compdir} \$fpath); autoload -U compinit; compinit -u -D"
fi
zpty -w z 'compadd () { local -a hits; builtin compadd -O hits "$@"; (( $#hits )) && print -r -- "<<H""IT>>"${^hits} >/dev/tty; builtin compadd "$@" }'
zpty -w z "setopt nobeep; zstyle ':completion:*' list-prompt ''"
zpty -w z "print '<<RE''ADY>>'; PS1='<<PR''OMPT>>'"
# Type only once zle shows the prompt and reads keys: keys typed ahead of it
# may be lost.
zpty -r z out '*<<READY>>*<<PROMPT>>*'
# The line and TAB, then ^U to clear it and a marker: zle finishes the
# completion before it reads the keys that follow.
zpty -n -w z "$line"$'\t'
zpty -n -w z $'\C-u'
zpty -w z "print '<<DO''NE>>'"
zpty -r z out '*<<DONE>>*'
zpty -d z
print -r -- "$out" | grep -ao '<<HIT>>[^[:space:]]*' | sed 's/^<<HIT>>//' | sort -u
