package linux

import (
	"strings"

	"github.com/lab-bench/lab/guest"
)

// RulesetError is a firewall ruleset refused by CheckRuleset, at a line
// and column (1-based) of the ruleset body (guest.RulesetError: spec
// reads it through the registry).
type RulesetError = guest.RulesetError

// CheckRuleset refuses a firewall ruleset body that could act outside the
// table lab wraps it in (table inet lab_fw { body }): braces must balance
// and never close more than they opened (a "}" would end lab's table and
// let "table inet evil { … }" follow), and no include may pull in a file
// of the guest (nft runs as root). Quoted strings and # comments are
// skipped, as nft's own scanner does.
func CheckRuleset(body string) error {
	line, col, off := 1, 0, 0
	depth := 0
	var open []struct{ line, col, off int }
	inString, inComment := false, false
	word := strings.Builder{}
	wordLine, wordCol, wordOff := 0, 0, 0
	endWord := func() error {
		if strings.EqualFold(word.String(), "include") {
			return &RulesetError{Line: wordLine, Column: wordCol, Offset: wordOff, Msg: `"include" is not allowed: it would read a file of the guest as root`}
		}
		word.Reset()
		return nil
	}
	for i, r := range body {
		col++
		off = i
		isWord := !inString && !inComment && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
		if !isWord && word.Len() > 0 {
			if err := endWord(); err != nil {
				return err
			}
		}
		switch {
		case r == '\n':
			if inString { // a string does not span lines in nft either
				return &RulesetError{Line: line, Column: col, Offset: off, Msg: "unterminated string"}
			}
			line, col = line+1, 0
			inComment = false
		case inComment:
		case inString:
			if r == '"' {
				inString = false
			}
		case r == '"':
			inString = true
		case r == '#':
			inComment = true
		case r == '{':
			depth++
			open = append(open, struct{ line, col, off int }{line, col, off})
		case r == '}':
			if depth == 0 {
				return &RulesetError{Line: line, Column: col, Offset: off, Msg: `"}" closes a brace the ruleset did not open: it would end lab's table`}
			}
			depth--
			open = open[:len(open)-1]
		case isWord:
			if word.Len() == 0 {
				wordLine, wordCol, wordOff = line, col, off
			}
			word.WriteRune(r)
		}
	}
	if word.Len() > 0 {
		if err := endWord(); err != nil {
			return err
		}
	}
	if inString {
		return &RulesetError{Line: line, Column: col, Offset: len(body), Msg: "unterminated string"}
	}
	if depth > 0 {
		o := open[len(open)-1]
		return &RulesetError{Line: o.line, Column: o.col, Offset: o.off, Msg: `"{" is never closed`}
	}
	return nil
}
