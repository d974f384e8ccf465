# bash completion for fsreplay, slowfs and wsl1-harness (installed as
# /usr/share/bash-completion/completions/{fsreplay,slowfs,wsl1-harness}).
# Verbs, options and option values are read from the programs' own --help
# (`fsreplay --help`, `fsreplay VERB --help`), cached per shell, so a new verb
# or option completes without editing this file. Works with or without the
# bash-completion package (its _filedir and _command_offset are used if there).

declare -gA _fsreplay_help_cache

# _fsreplay_help CMD [VERB]: the help text, cached.
_fsreplay_help() {
  local key="$1 ${2-}"
  if [[ -z ${_fsreplay_help_cache[$key]+set} ]]; then
    _fsreplay_help_cache[$key]=$("$1" ${2:+"$2"} --help 2>/dev/null)
  fi
  printf '%s\n' "${_fsreplay_help_cache[$key]}"
}

# Verbs: the first word of each line under "Subcommands:".
_fsreplay_verbs() {
  _fsreplay_help "$1" | awk '/^Subcommands:/ {s=1; next} s && /^[^ ]/ {s=0} s && NF {print $1}'
}

# Options: every -x / --long at the start of a help line ("-o,--output TEXT").
_fsreplay_options() {
  _fsreplay_help "$1" "${2-}" | awk '$1 ~ /^-/ { n = split($1, a, ","); for (i = 1; i <= n; i++) if (a[i] ~ /^-/) print a[i] }'
}

# The help line of option OPT (empty if none).
_fsreplay_option_line() {
  _fsreplay_help "$1" "${2-}" | awk -v o="$3" '$1 ~ /^-/ { n = split($1, a, ","); for (i = 1; i <= n; i++) if (a[i] == o) { print; exit } }'
}

_fsreplay_files() {  # $1: -d for directories
  if declare -F _filedir >/dev/null; then _filedir ${1:+-d}; return; fi
  local IFS=$'\n'
  COMPREPLY=($(compgen ${1:--f} -- "$cur"))
}

# Completes the value of option $3 (of command $1, verb $2) if it takes one;
# returns 1 if it is a flag.
_fsreplay_value() {
  local line choices
  line=$(_fsreplay_option_line "$1" "${2-}" "$3")
  [[ -n $line ]] || return 1
  read -r -a f <<<"$line"
  if [[ $line =~ :\{([^}]*)\} ]]; then                # CLI11 choices: TEXT:{think,afap,exact}
    choices=${BASH_REMATCH[1]//,/ }
    COMPREPLY=($(compgen -W "$choices" -- "$cur")); return 0
  fi
  [[ ${f[1]-} =~ ^[A-Z][A-Z:_]*$ ]] || return 1      # no metavariable: a flag
  if [[ $3 == --profile && $1 == *slowfs ]]; then
    COMPREPLY=($(compgen -W "$("$1" --profiles 2>/dev/null | awk -F: '/^[a-z0-9-]+: / {print $1}')" -- "$cur"))
    return 0
  fi
  case ${f[1]}$3 in
    *DIR*|*--target|*--scratch|*--root|*--backing) _fsreplay_files -d ;;
    *UINT*|*INT*|*NUM*|*SECS*|*--pid|*--buffer-mib) COMPREPLY=() ;;
    *) _fsreplay_files ;;
  esac
  return 0
}

_fsreplay() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[0]}
  local verb="" i
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ ${COMP_WORDS[i]} == -- ]] && {        # record -- CMD ARGS...: complete the command
      if declare -F _command_offset >/dev/null; then _command_offset $((i + 1)); else COMPREPLY=($(compgen -c -- "$cur")); fi
      return; }
    [[ -z $verb && ${COMP_WORDS[i]} != -* ]] && verb=${COMP_WORDS[i]}
  done
  if [[ -z $verb ]]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_fsreplay_options "$cmd")" -- "$cur"))
    else COMPREPLY=($(compgen -W "$(_fsreplay_verbs "$cmd")" -- "$cur")); fi
    return
  fi
  if [[ $prev == -* && $cur != -* ]] && _fsreplay_value "$cmd" "$verb" "$prev"; then return; fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_fsreplay_options "$cmd" "$verb")" -- "$cur"))
  else _fsreplay_files; fi
}

_fsreplay_slowfs() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[0]}
  COMPREPLY=()
  if [[ $prev == -* && $cur != -* ]] && _fsreplay_value "$cmd" "" "$prev"; then return; fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_fsreplay_options "$cmd")" -- "$cur"))
  else _fsreplay_files -d; fi                  # BACKING MOUNTPOINT
}

_fsreplay_wsl1_harness() {
  local cur=${COMP_WORDS[COMP_CWORD]} i w
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do       # i: where CMD begins
    w=${COMP_WORDS[i]}
    [[ $w == -- ]] && { ((i++)); break; }
    [[ $w == -* ]] || break
  done
  if ((i < COMP_CWORD)) || [[ $cur != -* ]]; then
    if declare -F _command_offset >/dev/null; then _command_offset "$i"; else COMPREPLY=($(compgen -c -- "$cur")); fi
    return
  fi
  COMPREPLY=($(compgen -W "$(_fsreplay_options "${COMP_WORDS[0]}") --" -- "$cur"))
}

complete -F _fsreplay fsreplay fsreplay-static
complete -F _fsreplay_slowfs slowfs
complete -F _fsreplay_wsl1_harness wsl1-harness
