package spec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

const secret = "hunter2-token"

func TestSensitiveNotInExperiments(t *testing.T) {
	src := labWith(`description = "x${var.token}"`) + "variable \"token\" {\n  sensitive = true\n  default = \"" + secret + "\"\n}\n"
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
	wantOneError(t, l, diags, "Sensitive variable in an experiment",
		`var.token is sensitive, and an experiment's values are recorded in every plan and result and shown as runs progress; use sensitive variables outside experiments only (provider and template blocks).`,
		"main.hcl", 6, 21)
	// The whole var object holds it too.
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(strings.Replace(src, "var.token", "jsonencode(var)", 1))}, Options{})
	wantOneError(t, l, diags, "Sensitive variable in an experiment", "", "main.hcl", 6, 32)
	// Outside experiments it may be used.
	ok := smallLab + "variable \"token\" {\n  sensitive = true\n  default = \"" + secret + "\"\n}\nprovider \"local\" \"default\" {}\n"
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(ok)}, Options{})
	wantNoError(t, l, diags)
}

// TestSensitiveRedacted: a sensitive value never appears in rendered
// diagnostics, whether from a -var, a validation message or an
// expression's context.
func TestSensitiveRedacted(t *testing.T) {
	src := smallLab + `variable "token" {
  type      = number
  sensitive = true
  default   = 12345678
  validation {
    condition     = var.token < 100
    error_message = "token ${var.token} is too big."
  }
}
`
	render := func(l *Lab, diags hcl.Diagnostics) string {
		var b bytes.Buffer
		if err := l.WriteDiagnostics(&b, diags, 0, false); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
	if !diags.HasErrors() || strings.Contains(render(l, diags), "12345678") || !strings.Contains(diags[0].Detail, "token (sensitive value) is too big.") {
		t.Errorf("validation message:\n%s", render(l, diags))
	}
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{Vars: []string{"token=s3cr3t-x"}})
	if out := render(l, diags); !diags.HasErrors() || strings.Contains(out, "s3cr3t") {
		t.Errorf("-var message:\n%s", out)
	}
	// A diagnostic with an expression reading var.token and its context
	// (as a provider's would have) is shown without "with var.token as …".
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(strings.Replace(src, "< 100", "> 100", 1))}, Options{})
	wantNoError(t, l, diags)
	expr, _ := parseExpr(t, "var.token + 1")
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Bad", Detail: "got 12345679, 12345678", Subject: expr.Range().Ptr(),
		Expression: expr, EvalContext: l.EvalContext()}
	if out := render(l, hcl.Diagnostics{d}); strings.Contains(out, "12345678") {
		t.Errorf("context shown:\n%s", out)
	}
}

func parseExpr(t *testing.T, src string) (hcl.Expression, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "main.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return expr, diags
}

// TestSensitiveValues lists every leaf of every sensitive variable, by a
// label unique per value, and nothing of the others.
func TestSensitiveValues(t *testing.T) {
	src := smallLab + `variable "token" {
  sensitive = true
  default   = "` + secret + `"
}
variable "keys" {
  sensitive = true
  default   = { vc = "vc-pass", list = ["one-key", "two-key"] }
}
variable "open" { default = "not-secret" }
`
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
	wantNoError(t, l, diags)
	got := l.SensitiveValues()
	want := map[string]string{"token": secret, "keys.vc": "vc-pass", "keys.list.0": "one-key", "keys.list.1": "two-key"}
	if len(got) != len(want) {
		t.Fatalf("SensitiveValues() = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("SensitiveValues()[%q] = %q, want %q", k, got[k], v)
		}
	}
}

// TestSensitiveRedactedQuotedAndWrapped: a value a message quotes with %q
// (a quote and a control byte in it escaped) is redacted too, before the
// text writer wraps the detail — wrapping at its spaces used to leave a
// piece of it on each line, which no later redaction could find.
func TestSensitiveRedactedQuotedAndWrapped(t *testing.T) {
	value := "Qx1 Qx2\"Qx3 Qx4\x1b Qx5"
	src := smallLab + "variable \"token\" {\n  sensitive = true\n  type = string\n}\n"
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{Vars: []string{"token=" + value}})
	wantNoError(t, l, diags)
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid operating system",
		Detail: fmt.Sprintf("os must be \"linux\" or \"freebsd\", got %q; raw: %s.", value, value)}
	for _, width := range []uint{0, 12, 30} {
		var b bytes.Buffer
		if err := l.WriteDiagnostics(&b, hcl.Diagnostics{d}, width, false); err != nil {
			t.Fatal(err)
		}
		// "(sensitive value)" may itself be wrapped: count it with the
		// line breaks taken out.
		if out := b.String(); strings.Contains(out, "Qx") || strings.Count(strings.Join(strings.Fields(out), " "), "(sensitive value)") != 2 {
			t.Errorf("width %d: want the value redacted twice and no piece of it:\n%s", width, out)
		}
	}
}
