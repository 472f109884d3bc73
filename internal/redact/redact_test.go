package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	s := &Set{}
	s.Add("key", "/secret/id_ed25519")
	s.Add("short", "abc")          // below MinLen: ignored
	s.Add("pw", `p"w<d>\x`)        // escapes differ in JSON and %q
	s.Add("inner", "secret/id_ed") // inside the longer one
	tests := []struct{ in, want string }{
		{"private key: open /secret/id_ed25519: no such file", "private key: open (sensitive value): no such file"},
		{"abc stays", "abc stays"},
		{"no secret/id_ed here", "no (sensitive value) here"},
		{mustJSON(t, `p"w<d>\x`), `"(sensitive value)"`},
		{fmt.Sprintf("%q", `p"w<d>\x`), `"(sensitive value)"`},
		{`raw p"w<d>\x`, "raw (sensitive value)"},
		// A %q'd message inside JSON, with and without HTML escapes (a
		// -json event; validate -json's diagnostics keep < > &).
		{mustJSON(t, fmt.Sprintf("got %q.", `p"w<d>\x`)), `"got \"(sensitive value)\"."`},
		{plainJSON(t, fmt.Sprintf("got %q.", `p"w<d>\x`)), `"got \"(sensitive value)\"."`},
		{plainJSON(t, `p"w<d>\x`), `"(sensitive value)"`},
	}
	for _, tc := range tests {
		if got := s.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var nilSet *Set
	if nilSet.String("x /secret/id_ed25519") != "x /secret/id_ed25519" || !nilSet.Empty() {
		t.Error("a nil Set must redact nothing")
	}
}

// plainJSON is v as a json.Encoder with SetEscapeHTML(false) writes it.
func plainJSON(t *testing.T, v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func mustJSON(t *testing.T, v string) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriter(t *testing.T) {
	s := &Set{}
	var buf bytes.Buffer
	w := s.Writer(&buf)
	s.Add("pw", "hunter22") // added after the writer was made
	n, err := fmt.Fprintf(w, "Error: login with hunter22 failed\n")
	if err != nil || n != len("Error: login with hunter22 failed\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := buf.String(); got != "Error: login with (sensitive value) failed\n" {
		t.Errorf("wrote %q", got)
	}
}

func TestSealUnseal(t *testing.T) {
	s := &Set{}
	s.Add("key", `/k/"quoted"/id`)
	s.Add("list.1", "second-value")
	in, err := json.Marshal(map[string]string{"file": `/k/"quoted"/id`, "other": "x second-value y"})
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.Seal(in)
	if strings.Contains(string(sealed), "quoted") || strings.Contains(string(sealed), "second-value") {
		t.Fatalf("sealed: %s", sealed)
	}
	if !strings.Contains(string(sealed), "(sensitive value var.key)") || !strings.Contains(string(sealed), "(sensitive value var.list.1)") {
		t.Errorf("sealed without placeholders: %s", sealed)
	}
	if back := s.Unseal(sealed); !bytes.Equal(back, in) {
		t.Errorf("Unseal(Seal(x)) = %s, want %s", back, in)
	}
	if other := (&Set{}).Unseal(sealed); !bytes.Equal(other, sealed) {
		t.Errorf("a Set without the variable changed the placeholder: %s", other)
	}
}
