package diagtext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// diagnose parses src as main.hcl and decodes it as a small language of
// lab "NAME" { description = EXPR } and variable "NAME" { default = EXPR }
// blocks, evaluated with var.v = "a": its diagnostics are HCL's own
// (syntax, unsupported argument, invalid operand, with the expression and
// its context) and, as spec reports a block name that is not a name, one
// at a label that is not an identifier.
func diagnose(t *testing.T, src string) (map[string]*hcl.File, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "main.hcl", hcl.InitialPos)
	files := map[string]*hcl.File{"main.hcl": f}
	if diags.HasErrors() {
		return files, diags
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "lab", LabelNames: []string{"name"}}, {Type: "variable", LabelNames: []string{"name"}}}})
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"v": cty.StringVal("a")})}}
	attr := map[string]string{"lab": "description", "variable": "default"}
	for _, b := range content.Blocks {
		if !hclsyntax.ValidIdentifier(b.Labels[0]) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid name",
				Detail: fmt.Sprintf("%q is not a name.", b.Labels[0]), Subject: &b.LabelRanges[0]})
		}
		c, d := b.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: attr[b.Type]}}})
		diags = append(diags, d...)
		if a := c.Attributes[attr[b.Type]]; a != nil {
			_, d := a.Expr.Value(ctx)
			diags = append(diags, d...)
		}
	}
	return files, diags
}

// TestWriterAsHCL: on clean sources the writer prints byte for byte what
// HCL's own text writer prints, with and without color: the source lines,
// the block they are in, the values the expression read.
func TestWriterAsHCL(t *testing.T) {
	srcs := []string{
		"lab \"x\" {\n  colour = 1\n}\n",
		"lab \"x\" {\n  description = [\n    1 + \"a\",\n  ]\n}\n",
		"variable \"v\" { default = \"a\" }\nlab \"x\" { description = var.v + 1 }\n",
		"lab \"x\" {\r\n  colour = 1\r\n}\r\n",
		"lab \"x\" {\n",
	}
	for _, src := range srcs {
		for _, color := range []bool{false, true} {
			files, diags := diagnose(t, src)
			if len(diags) == 0 {
				t.Fatalf("%q: no diagnostics", src)
			}
			var got, want strings.Builder
			if err := NewWriter(&got, files, 78, color).WriteDiagnostics(diags); err != nil {
				t.Fatal(err)
			}
			if err := hcl.NewDiagnosticTextWriter(&want, files, 78, color).WriteDiagnostics(diags); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%q (color %t):\ngot:\n%s\nwant (HCL):\n%s", src, color, got.String(), want.String())
			}
		}
	}
}

// TestDiagnosticSnippets: what a diagnostic prints from a hostile spec is
// bounded and escaped.
func TestDiagnosticSnippets(t *testing.T) {
	long := strings.Repeat("a", 400<<10)
	tests := []struct {
		name, src string
		color     bool
		want      []string // substrings of the output
		maxBytes  int
	}{
		{"400 KB line", "lab \"x\" {\n  description = \"" + long + "\" + 1\n}\n", false,
			[]string{`description = "aaa`, "a…\n", "\n                      ^^^", "Invalid operand"}, 2000},
		{"400 KB line, error at its end", "lab \"x\" {\n  description = \"" + long + "\"\n  colour = 1 }\n", false,
			[]string{"colour = 1"}, 2000},
		{"400 KB line, error past its middle", "lab \"x\" {\n  description = [\"" + long + "\", 1 + \"z\"]\n}\n", false,
			[]string{"   2: …aaaa", `aaaa", 1 + "z"]` + "\n", "Invalid operand"}, 2000},
		{"400 KB of 4-byte characters", "lab \"x\" {\n  description = [\"" + strings.Repeat("\U0001F600", 100<<10) + "\", 1 + \"z\"]\n}\n", false,
			[]string{"   2: …\U0001F600\U0001F600", "\U0001F600\", 1 + \"z\"]\n"}, 3000},
		{"ESC in a string", "lab \"x\" {\n  description = \"\x1b[2J\x1b]0;owned\x07\" + 1\n}\n", false,
			[]string{`"\x1b[2J\x1b]0;owned\x07" + 1`, "\n                      ^^^^^^^^^^^^^^^^^^^^^^^^^\n"}, 2000},
		{"ESC in an identifier", "lab \"x\" {\n  x\x1b[31m = 1\n}\n", false,
			[]string{`x\x1b[31m = 1`, "Invalid character"}, 4000},
		{"ESC in a label", "lab \"x\x1b[2J\" {}\n", true,
			[]string{`\x1b[2J`}, 4000},
		{"C1, DEL and invalid UTF-8", "lab \"x\" {\n  description = \"\u009b31m\x7f\xff\" + 1\n}\n", false,
			[]string{`"\u009b31m\x7f\xff" + 1`}, 2000},
		{"bidirectional override", "lab \"x\" {\n  description = \"a\u202eb\" + 1\n}\n", true,
			[]string{`"a\u202eb"`}, 2000},
		{"many long lines in one range", "lab \"x\" {\n  description = 1 + <<EOT\n" + strings.Repeat(long[:1000]+"\n", 50) + "EOT\n}\n", false,
			[]string{"  11: aaaa", "…\n      …\n\n", "Invalid operand"}, 4000},
	}
	ownCodes := strings.NewReplacer("\x1b[31m", "", "\x1b[33m", "", "\x1b[0m", "", "\x1b[1;4m", "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, diags := diagnose(t, tt.src)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			var b strings.Builder
			if err := NewWriter(&b, files, 0, tt.color).WriteDiagnostics(diags); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if len(out) > tt.maxBytes {
				t.Errorf("%d bytes of diagnostics, want at most %d:\n%.3000s", len(out), tt.maxBytes, out)
			}
			for i, r := range ownCodes.Replace(out) {
				if r != '\n' && r != '\t' && unsafeRune(r) {
					t.Fatalf("unescaped %q at byte %d:\n%q", r, i, out)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%.3000s", w, out)
				}
			}
		})
	}
}
