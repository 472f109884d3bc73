package freebsd

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// MaxPFConf bounds a pf.conf body's size (it is uploaded as a file).
const MaxPFConf = 64 << 10

// pfFileWords are the pf.conf(5) words that make pfctl read another file
// of the guest as root: include "FILE", load anchor NAME from "FILE" and
// table <NAME> file "FILE". A body naming one is refused.
var pfFileWords = map[string]string{
	"include": `"include" is not allowed: it would make pfctl read a file of the guest as root`,
	"load":    `"load anchor … from" is not allowed: it would make pfctl read a file of the guest as root`,
	"file":    `a table's "file" is not allowed: it would make pfctl read a file of the guest as root`,
}

// bareWordRE is a body of one word: a preset's name, or a typo of one.
var bareWordRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckPF refuses a FreeBSD firewall value before anything runs: a single
// word that is not one of PFPresets (a pf.conf of one word would be a typo
// of a preset more likely than the rule "pass"), a body over MaxPFConf,
// control characters other than newline and tab, and the words that read
// other files (pfFileWords) outside quotes and # comments — pf.conf(5)'s
// lexer (sbin/pfctl/parse.y, yylex) quotes with "…" or '…' within one
// line and comments from # to the end of the line. pfctl itself checks
// the rest at apply, before its transaction commits. A refusal is a
// *guest.RulesetError.
func CheckPF(body string) error {
	if pfPreset(body) != nil {
		return nil
	}
	trimmed := strings.TrimSpace(body)
	if bareWordRE.MatchString(trimmed) {
		off := strings.Index(body, trimmed)
		nl := strings.LastIndex(body[:off], "\n")
		return &guest.RulesetError{Line: 1 + strings.Count(body[:off], "\n"), Column: off - nl, Offset: off,
			Msg: fmt.Sprintf("%q is not a pf preset (%s); a pf.conf body has whole rules", trimmed, strings.Join(PFPresetNames(), ", "))}
	}
	if len(body) > MaxPFConf {
		return &guest.RulesetError{Line: 1, Column: 1, Msg: fmt.Sprintf("the pf.conf body has %d bytes; at most %d are allowed", len(body), MaxPFConf)}
	}
	return scanPF(body)
}

// scanPF walks body as pf.conf's lexer would, refusing control characters
// and pfFileWords.
func scanPF(body string) error {
	line, col := 1, 0
	var quote rune
	inComment := false
	var word strings.Builder
	wordLine, wordCol, wordOff := 0, 0, 0
	endWord := func() error {
		defer word.Reset()
		if msg, bad := pfFileWords[strings.ToLower(word.String())]; bad {
			return &guest.RulesetError{Line: wordLine, Column: wordCol, Offset: wordOff, Msg: msg}
		}
		return nil
	}
	for i, r := range body {
		col++
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return &guest.RulesetError{Line: line, Column: col, Offset: i,
				Msg: fmt.Sprintf("the control character %q: a pf.conf body is text with newlines and tabs only", r)}
		}
		isWord := quote == 0 && !inComment && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		if !isWord && word.Len() > 0 {
			if err := endWord(); err != nil {
				return err
			}
		}
		switch {
		case r == '\n':
			if quote != 0 {
				return &guest.RulesetError{Line: line, Column: col, Offset: i, Msg: "unterminated quoted string"}
			}
			line, col, inComment = line+1, 0, false
		case inComment:
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#':
			inComment = true
		case isWord:
			if word.Len() == 0 {
				wordLine, wordCol, wordOff = line, col, i
			}
			word.WriteRune(r)
		}
	}
	if word.Len() > 0 {
		if err := endWord(); err != nil {
			return err
		}
	}
	if quote != 0 {
		return &guest.RulesetError{Line: line, Column: col, Offset: len(body), Msg: "unterminated quoted string"}
	}
	return nil
}
