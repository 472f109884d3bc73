package view

// BashCompletion completes verbs, then each verb's flags (asked of lab
// itself, `lab __complete VERB`, so the script never goes stale), then
// file names.
const BashCompletion = `# lab shell completion: eval "$(lab completion bash)"
_lab() {
  local cur verb w
  cur="${COMP_WORDS[COMP_CWORD]}"
  verb=""
  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$w" in -*) ;; *) verb="$w"; break ;; esac
  done
  if [ -z "$verb" ]; then
    COMPREPLY=($(compgen -W "$(lab __complete 2>/dev/null)" -- "$cur"))
  elif [ "${cur#-}" != "$cur" ]; then
    COMPREPLY=($(compgen -W "$(lab __complete "$verb" 2>/dev/null)" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _lab lab
`

// ZshCompletion uses the bash function through zsh's bashcompinit.
const ZshCompletion = `# lab shell completion: eval "$(lab completion zsh)"
autoload -U +X bashcompinit && bashcompinit
` + BashCompletion
