package freebsd

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// MaxPFConf bounds a pf.conf body's size (it is uploaded as a file).
const MaxPFConf = 64 << 10

// pfFileWords are the pf.conf(5) keywords that make pfctl read another
// file of the guest as root: include "FILE", load anchor NAME from "FILE",
// table <NAME> file "FILE" and set fingerprints "FILE" (parse.y's lookup
// table: INCLUDE, LOAD, FILENAME, FINGERPRINTS). A body naming one is
// refused.
var pfFileWords = map[string]string{
	"fingerprints": `"set fingerprints" is not allowed: it would make pfctl read a file of the guest as root`,
	"include":      `"include" is not allowed: it would make pfctl read a file of the guest as root`,
	"load":         `"load anchor … from" is not allowed: it would make pfctl read a file of the guest as root`,
	"file":         `a table's "file" is not allowed: it would make pfctl read a file of the guest as root`,
}

// bareWordRE is a body of one word: a preset's name, or a typo of one.
var bareWordRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckPF refuses a FreeBSD firewall value before anything runs: a single
// word that is not one of PFPresets (a pf.conf of one word would be a typo
// of a preset more likely than the rule "pass"), a body over MaxPFConf,
// control characters other than newline and tab, and the keywords that
// read other files (pfFileWords) wherever pf.conf's lexer would read them
// as keywords (see pfLexer), in quoted strings too, since a macro's value
// is read again as rules where the macro is used. pfctl itself checks the
// rest at apply, before its transaction commits. A refusal is a
// *guest.RulesetError.
func CheckPF(body string) error {
	if pfPreset(body) != nil {
		return nil
	}
	trimmed := strings.TrimSpace(body)
	if bareWordRE.MatchString(trimmed) {
		return pfError(body, strings.Index(body, trimmed),
			fmt.Sprintf("%q is not a pf preset (%s); a pf.conf body has whole rules", trimmed, strings.Join(PFPresetNames(), ", ")))
	}
	if len(body) > MaxPFConf {
		return pfError(body, 0, fmt.Sprintf("the pf.conf body has %d bytes; at most %d are allowed", len(body), MaxPFConf))
	}
	for i, r := range body {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return pfError(body, i, fmt.Sprintf("the control character %q: a pf.conf body is text with newlines and tabs only", r))
		}
	}
	return scanPF(body, body, 0, false)
}

// pfError is a refusal at byte off of body, with its line and column
// (1-based, in runes).
func pfError(body string, off int, msg string) *guest.RulesetError {
	line, col := 1, 1
	for _, r := range body[:off] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &guest.RulesetError{Line: line, Column: col, Offset: off, Msg: msg}
}

// pfLexer reads text as pf.conf's lexer does (sbin/pfctl/parse.y: lgetc,
// yylex). Outside quotes a backslash is dropped and the next byte taken
// as it is, a backslash before a newline joins the lines (lgetc); raw
// text (a macro's value, which lgetc returns from parsebuf unprocessed)
// has no such rule.
type pfLexer struct {
	text string
	i    int
	raw  bool
}

// get is lgetc(0): the next byte and its offset; ok false at the end.
func (l *pfLexer) get() (c byte, off int, ok bool) {
	for l.i < len(l.text) {
		c, off = l.text[l.i], l.i
		l.i++
		if c != '\\' || l.raw {
			return c, off, true
		}
		if l.i >= len(l.text) {
			return 0, 0, false
		}
		next := l.text[l.i]
		l.i++
		if next != '\n' {
			return next, l.i - 1, true
		}
	}
	return 0, 0, false
}

// quoted reads a string quoted with q, its opening quote read: yylex keeps
// every byte but a newline, takes a backslash before q as q (the string
// goes on) and drops one before a newline; ok is false when the text ends
// first ("reached end of file while parsing quoted string").
func (l *pfLexer) quoted(q byte) (content string, ok bool) {
	var b strings.Builder
	for l.i < len(l.text) {
		c := l.text[l.i]
		l.i++
		switch {
		case c == '\n':
			continue
		case c == q:
			return b.String(), true
		case c == '\\' && l.i < len(l.text) && (l.text[l.i] == q || l.text[l.i] == '\n'):
			if l.text[l.i] == q {
				b.WriteByte(q)
			}
			l.i++
			continue
		}
		b.WriteByte(c)
	}
	return "", false
}

// allowedInString is parse.y's allowed_in_string: the bytes a word goes
// on with once it started with a letter, a digit, ':' or '_'.
func allowedInString(c byte) bool {
	alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	punct := c > ' ' && c < 0x7f && !alnum
	return alnum || punct && !strings.ContainsRune("(){}<>!=/#,", rune(c))
}

// scanPF lexes text (body itself, or raw a quoted string's content at
// byte at of body) and refuses a pfFileWords keyword: a word pf's
// lookup() matches exactly. Comments run from '#' to a newline lgetc does
// not join; a quote starts a string only where a token starts.
func scanPF(body, text string, at int, raw bool) error {
	l := &pfLexer{text: text, raw: raw}
	place := func(off int) int {
		if raw {
			return at // inside a quoted string: its opening quote
		}
		return off
	}
	for {
		c, off, ok := l.get()
		switch {
		case !ok:
			return nil
		case c == '#':
			for ok && c != '\n' {
				c, _, ok = l.get()
			}
		case c == '"' || c == '\'':
			content, ok := l.quoted(c)
			if !ok {
				return pfError(body, place(off), "unterminated quoted string")
			}
			if err := scanPF(body, content, place(off), true); err != nil {
				return err
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ':' || c == '_':
			word := []byte{c}
			for {
				save := l.i
				c2, _, ok := l.get()
				if !ok || !allowedInString(c2) {
					l.i = save
					break
				}
				word = append(word, c2)
			}
			if msg, bad := pfFileWords[string(word)]; bad {
				if raw {
					msg += " (in a quoted string: a macro's value is read again as rules where the macro is used)"
				}
				return pfError(body, place(off), msg)
			}
		}
	}
}
