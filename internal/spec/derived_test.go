package spec

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/redact"
)

// derivedLab declares a sensitive key, a sensitive object and an open
// variable, and uses EXPR both in a provider block (decoded later by the
// provider) and as a template's os (which the loader refuses, quoting it).
const derivedLab = `lab "x" {}
variable "key" {
  type      = string
  sensitive = true
  default   = "/nonexistent/S3cr3t-Pa55/zz"
}
variable "obj" {
  sensitive = true
  default   = { secret = "obj-Secret-Leaf" }
}
variable "open" { default = "open-value" }
provider "hosts" "h" {
  server { private_key_file = EXPR }
}
template "t" { os = EXPR }
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 {}
}
`

// derivedCases are expressions over the variables of derivedLab and the
// value each yields: hidden when it is derived from a sensitive value.
var derivedCases = []struct {
	expr, value string
	hidden      bool
}{
	{"upper(var.key)", "/NONEXISTENT/S3CR3T-PA55/ZZ", true},
	{"substr(var.key, 0, 24)", "/nonexistent/S3cr3t-Pa55", true},
	{`"${var.key}-x"`, "/nonexistent/S3cr3t-Pa55/zz-x", true},
	{"lower(upper(var.key))", "/nonexistent/s3cr3t-pa55/zz", true},
	{"var.obj.secret", "obj-Secret-Leaf", true},
	{`format("%s", var.key)`, "/nonexistent/S3cr3t-Pa55/zz", true},
	{`format("%.20s!", var.key)`, "/nonexistent/S3cr3t-!", true},
	{`strlen(var.key) > 5 ? "/nonexistent/long-key" : "/nonexistent/short"`, "/nonexistent/long-key", true},
	{"upper(var.open)", "OPEN-VALUE", false},
}

// TestDerivedSensitive: a value computed from a sensitive variable
// (through functions, templates, attribute access or a condition) is
// sensitive too: SensitiveValues lists it, so that lab redacts it
// wherever it writes, and the loader's diagnostics never show it. A value
// computed from an open variable stays visible.
func TestDerivedSensitive(t *testing.T) {
	for _, tc := range derivedCases {
		t.Run(tc.expr, func(t *testing.T) {
			src := strings.ReplaceAll(derivedLab, "EXPR", tc.expr)
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
			if !diags.HasErrors() {
				t.Fatalf("want the os error, got none")
			}
			var b bytes.Buffer
			if err := l.WriteDiagnostics(&b, diags, 0, false); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "Invalid operating system") {
				t.Fatalf("want the os error:\n%s", out)
			}
			listed := false
			for _, v := range l.SensitiveValues() {
				listed = listed || v == tc.value
			}
			// The source line is shown as written: the conditional's
			// literals are there, which is no leak.
			shown := strings.Contains(withoutSource(out), tc.value)
			if tc.hidden && (shown || !strings.Contains(out, "(sensitive value)")) {
				t.Errorf("the derived value %q is shown:\n%s", tc.value, out)
			}
			if !tc.hidden && !shown {
				t.Errorf("the open value %q is hidden:\n%s", tc.value, out)
			}
			// A value that holds a sensitive value whole is redacted by it.
			if tc.hidden && !listed && !strings.Contains(tc.value, "S3cr3t-Pa55/zz") && tc.value != "obj-Secret-Leaf" {
				t.Errorf("SensitiveValues() lacks %q: %v", tc.value, l.SensitiveValues())
			}
			if !tc.hidden && listed {
				t.Errorf("SensitiveValues() lists the open value %q", tc.value)
			}
		})
	}
}

// withoutSource is rendered diagnostics without their source lines ("  15: …").
func withoutSource(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if !sourceLineRe.MatchString(line) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

var sourceLineRe = regexp.MustCompile(`^\s*\d+: `)

// TestDerivedSealRoundTrip: the state keeps a derived value as a
// placeholder whose label the next load of the same spec gives the same
// value, so destroy logs in with upper(var.key) as it was; the label
// names the variable, never the value.
func TestDerivedSealRoundTrip(t *testing.T) {
	src := []byte(strings.ReplaceAll(derivedLab, "EXPR", "upper(var.key)"))
	load := func() *redact.Set {
		l, _ := LoadFiles("", map[string][]byte{"main.hcl": src}, Options{})
		s := &redact.Set{}
		for label, v := range l.SensitiveValues() {
			if strings.Contains(label, "S3") || strings.Contains(label, "s3") {
				t.Errorf("label %q holds the value", label)
			}
			s.Add(label, v)
		}
		return s
	}
	state := []byte(`{"private_key_file":"/NONEXISTENT/S3CR3T-PA55/ZZ"}`)
	sealed := load().Seal(state)
	if bytes.Contains(sealed, []byte("S3CR3T")) || !regexp.MustCompile(`\(sensitive value var\.key#[0-9a-f]{8}\.0\)`).Match(sealed) {
		t.Fatalf("sealed: %s", sealed)
	}
	if got := load().Unseal(sealed); !bytes.Equal(got, state) {
		t.Errorf("unsealed by the next load: %s, want %s", got, state)
	}
}

// TestSensitiveCutNotShown: a message that quotes a value cut short
// ("got \"first 40 bytes…\"") hides a sensitive value, or one derived from
// it, as well as a whole one: the cut text used to escape redaction,
// showing up to 60 bytes of the secret.
func TestSensitiveCutNotShown(t *testing.T) {
	const long = "LongSecret-aaaaaaaaaa-bbbbbbbbbb-cccccccccc-dddddddddd-eeeeeeeeee-ffff"
	head := map[bool]string{false: long[:20], true: strings.ToUpper(long[:20])}
	for _, tc := range []struct {
		name, block string
		upper       bool
	}{
		{"os", `template "t" { os = var.key }`, false},
		{"os derived", `template "t" { os = upper(var.key) }`, true},
		{"ssh port", `template "t" {
  os = "linux"
  ssh { port = upper(var.key) }
}`, true},
		{"addresses", `template "t" {}
pair "q" {
  template  = template.t
  addresses = { server = var.key }
}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(smallLab, `template "t" {}`, tc.block, 1) +
				"variable \"key\" {\n  sensitive = true\n  type = string\n}\n"
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{Vars: []string{"key=" + long}})
			var b bytes.Buffer
			if err := l.WriteDiagnostics(&b, diags, 0, false); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !diags.HasErrors() || strings.Contains(out, head[tc.upper]) || !strings.Contains(out, "(sensitive value)") {
				t.Errorf("want an error that says (sensitive value) and no piece of the value:\n%s", out)
			}
		})
	}
}
