// Package redact keeps the values of sensitive variables out of what lab
// writes: terminal output, -json events, LAB_LOG logs, result records,
// saved plans and the state file. A Set is filled with the values when the
// spec is loaded and applied at each of those sinks, as plain substring
// replacement by "(sensitive value)", longest value first (so a value
// containing another is replaced whole).
//
// Each value is also looked for as JSON and Go string escapes would write
// it (inside an event, a record, a %q in an error, a %q'd message inside
// a JSON event or diagnostic), so a value with a quote, a backslash, a
// control byte or <>& in it is still found.
//
// Values shorter than MinLen bytes are not replaced: "1", "on" or "tcp"
// would blank every ordinary word and number they occur in, making output
// unreadable while protecting nothing a guess would not find.
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Text replaces a sensitive value in output.
const Text = "(sensitive value)"

// MinLen is the shortest value a Set replaces.
const MinLen = 4

// Set is the sensitive values of a lab. A nil *Set redacts nothing. Its
// methods are safe for concurrent use; values may be added while writers
// that use it are in use.
type Set struct {
	mu    sync.RWMutex
	forms []form            // longest text first
	raw   map[string]string // label → value, for Unseal
}

// form is one way a value appears: as is, or escaped.
type form struct {
	text  string
	label string // the value's variable, for Seal
}

// Add makes value sensitive; label names it in what Seal leaves ("name",
// or "name.key" for an element of a collection; unique per value). A
// value shorter than MinLen is ignored.
func (s *Set) Add(label, value string) {
	if s == nil || len(value) < MinLen {
		return
	}
	// As is, in a JSON string (HTML-escaped or not: validate -json keeps
	// < > &), after %q, and after %q inside a JSON string (a quoted
	// message in a -json event or diagnostic).
	q := goInner(value)
	texts := []string{value, jsonInner(value), jsonPlain(value), q, jsonInner(q), jsonPlain(q)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw == nil {
		s.raw = map[string]string{}
	}
	s.raw[label] = value
	for _, t := range texts {
		if !slices.ContainsFunc(s.forms, func(f form) bool { return f.text == t }) {
			s.forms = append(s.forms, form{text: t, label: label})
		}
	}
	slices.SortStableFunc(s.forms, func(a, b form) int { return len(b.text) - len(a.text) })
}

// Empty reports whether s holds no value.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.forms) == 0
}

// String returns x with every sensitive value replaced by Text.
func (s *Set) String(x string) string {
	if s == nil {
		return x
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		x = strings.ReplaceAll(x, f.text, Text)
	}
	return x
}

// Bytes returns b with every sensitive value replaced by Text (b itself
// when there is none).
func (s *Set) Bytes(b []byte) []byte {
	if s == nil {
		return b
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f.text)) {
			b = bytes.ReplaceAll(b, []byte(f.text), []byte(Text))
		}
	}
	return b
}

// Writer returns a writer that redacts each Write before passing it to w.
// Values are found within one Write: lab writes a message, an event or a
// log record in one call. It has w's Fd method when w has one, so a
// terminal is still recognised through it.
func (s *Set) Writer(w io.Writer) io.Writer {
	if f, ok := w.(fder); ok {
		return fdWriter{writer{s, w}, f}
	}
	return writer{s, w}
}

type fder interface{ Fd() uintptr }

type writer struct {
	s *Set
	w io.Writer
}

func (w writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.s.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

type fdWriter struct {
	writer
	f fder
}

func (w fdWriter) Fd() uintptr { return w.f.Fd() }

// sealPrefix starts the placeholder Seal leaves in a file that must get
// the value back when it is read (the state: a machine is reached again
// with the spec's private key path).
const sealPrefix = "(sensitive value var."

// Seal is Bytes for JSON that lab reads back: each value becomes
// "(sensitive value var.LABEL)", which Unseal turns back into the value
// the variable has then.
func (s *Set) Seal(b []byte) []byte {
	if s == nil {
		return b
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if bytes.Contains(b, []byte(f.text)) {
			b = bytes.ReplaceAll(b, []byte(f.text), []byte(sealPrefix+f.label+")"))
		}
	}
	return b
}

// Unseal puts the current value of each variable Seal named back into
// JSON b (as a JSON string's content); a placeholder of a variable s does
// not hold stays as it is.
func (s *Set) Unseal(b []byte) []byte {
	if s == nil || !bytes.Contains(b, []byte(sealPrefix)) {
		return b
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for label, v := range s.raw {
		b = bytes.ReplaceAll(b, []byte(sealPrefix+label+")"), []byte(jsonInner(v)))
	}
	return b
}

// jsonInner is v as encoding/json writes it inside a string's quotes.
func jsonInner(v string) string {
	b, _ := json.Marshal(v) // a string always marshals
	return string(b[1 : len(b)-1])
}

// jsonPlain is v as a json.Encoder with SetEscapeHTML(false) writes it
// inside a string's quotes.
func jsonPlain(v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// goInner is v as %q writes it inside the quotes.
func goInner(v string) string {
	q := strconv.Quote(v)
	return q[1 : len(q)-1]
}
