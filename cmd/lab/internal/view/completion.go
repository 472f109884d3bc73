package view

import (
	"regexp"
	"slices"
	"strings"
)

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

// CompletionSource is what Candidates completes from.
type CompletionSource struct {
	Verbs, GlobalFlags, Formats, Shells, StateSubcommands []string
	// VerbFormats are the -format values of a verb whose formats are not
	// Formats (compare: table, svg, html).
	VerbFormats map[string][]string
	// Flags are a verb's flags (path: the verb and, for state, its
	// subcommand).
	Flags func(path ...string) []string
}

// Candidates is `lab __complete -- WORD… CUR`'s answer: the candidates
// for the last word, the one being completed (possibly empty), given the
// words typed after `lab` before it — verbs, a verb's flags, `state`'s
// subcommands, `-format`'s values, `completion`'s shells — or nothing,
// when the shell should complete file names.
func Candidates(words []string, src CompletionSource) []string {
	cur, typed := "", words
	if len(words) > 0 {
		cur, typed = words[len(words)-1], words[:len(words)-1]
	}
	var verb string
	var after []string // the words after the verb
	for i, w := range typed {
		if !strings.HasPrefix(w, "-") {
			verb, after = w, typed[i+1:]
			break
		}
	}
	prev := ""
	if len(typed) > 0 {
		prev = typed[len(typed)-1]
	}
	sub := ""
	for _, w := range after {
		if slices.Contains(src.StateSubcommands, w) {
			sub = w
			break
		}
	}
	formats := src.Formats
	if f, ok := src.VerbFormats[verb]; ok {
		formats = f
	}
	switch {
	case verb == "" && strings.HasPrefix(cur, "-"):
		return src.GlobalFlags
	case verb == "" || verb == "help":
		return src.Verbs
	case prev == "-format" || prev == "--format":
		return formats
	case strings.HasPrefix(cur, "-format=") || strings.HasPrefix(cur, "--format="):
		var out []string
		for _, f := range formats {
			out = append(out, cur[:strings.Index(cur, "=")+1]+f)
		}
		return out
	case verb == "completion" && len(after) == 0:
		return src.Shells
	case verb == "state" && sub == "" && strings.HasPrefix(cur, "-"):
		return []string{"-h"}
	case verb == "state" && sub == "":
		return src.StateSubcommands
	case strings.HasPrefix(cur, "-") && verb == "state":
		return src.Flags("state", sub)
	case strings.HasPrefix(cur, "-"):
		return src.Flags(verb)
	}
	return nil
}

// flagLine is a flag in a verb's usage ("  -auto-approve", "  -var name=value").
var flagLine = regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)

// FlagsInUsage are the flags a verb's -h usage lists, each once.
func FlagsInUsage(usage string) []string {
	var words []string
	for _, m := range flagLine.FindAllStringSubmatch(usage, -1) {
		if f := "-" + m[1]; !slices.Contains(words, f) {
			words = append(words, f)
		}
	}
	return words
}
