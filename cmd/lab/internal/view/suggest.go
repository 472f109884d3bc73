package view

import (
	"flag"
	"fmt"
	"strings"
)

// Closest is the name in names a mistyped word most likely meant, for a
// "Did you mean …?" line, or "" when none is near: the only name word is
// a prefix of ("repro" → "reproduce", as git suggests), else the one at
// the least Levenshtein distance if that is at most 2 (Terraform's rule).
func Closest(word string, names []string) string {
	var prefixed []string
	for _, n := range names {
		if word != "" && strings.HasPrefix(n, word) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestDist := "", 3
	for _, n := range names {
		if d := levenshtein(word, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// levenshtein is the edit distance between a and b (insertions,
// deletions and substitutions of single bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// DidYouMean is ` (did you mean "X"?)` for the name in names that word
// most likely meant (Closest), or "" when none is near: the tail of an
// "unknown verb/subcommand" error.
func DidYouMean(word string, names []string) string {
	if s := Closest(word, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// UnknownFlagHint is a "Did you mean -X?" line for the first flag in args
// that fs does not define, naming the defined flag nearest to it, or ""
// when every flag is defined or none is near. The flag package says only
// "flag provided but not defined"; parseFlags prints this line after it.
func UnknownFlagHint(fs *flag.FlagSet, args []string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return "" // flags end at the first argument
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
				i++ // "-format html": the next argument is the value
			}
			continue
		}
		if name == "" || name == "h" || name == "help" {
			continue
		}
		if s := Closest(name, names); s != "" {
			return fmt.Sprintf("Did you mean -%s?\n", s)
		}
		return ""
	}
	return ""
}
