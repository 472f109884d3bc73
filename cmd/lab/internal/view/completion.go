package view

// BashCompletion asks lab itself what fits the word being completed
// (`lab __complete -- WORD… CUR`: verbs, a verb's flags, state's
// subcommands, -format's values, so the script never goes stale), and
// completes file names when lab has nothing to offer.
const BashCompletion = `# lab shell completion: eval "$(lab completion bash)"
_lab() {
  local cur words
  cur="${COMP_WORDS[COMP_CWORD]}"
  words="$(lab __complete -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null)"
  if [ -n "$words" ]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _lab lab
`

// FishCompletion asks lab the same question as BashCompletion; fish
// filters the candidates by what is typed, and completes file names when
// lab has nothing to offer.
const FishCompletion = `# lab shell completion: lab completion fish | source
function __lab_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l cur (commandline -ct)
    set -l out (lab __complete -- $words $cur 2>/dev/null)
    if test (count $out) -gt 0; and test -n "$out[1]"
        printf '%s\n' $out
    else
        __fish_complete_path $cur
    end
end
complete -c lab -f -a '(__lab_complete)'
`

// ZshCompletion uses the bash function through zsh's bashcompinit.
const ZshCompletion = `# lab shell completion: eval "$(lab completion zsh)"
autoload -U +X bashcompinit && bashcompinit
` + BashCompletion
