package spec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/guest/linux"
)

// smallLab is a valid lab; tests append to it or pad it.
const smallLab = `lab "x" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 {}
}
`

// labWith is smallLab with an extra attribute in the experiment.
func labWith(attr string) string {
	return strings.Replace(smallLab, "  iperf3 {}", "  "+attr+"\n  iperf3 {}", 1)
}

// wantOneError checks diags hold exactly one error, with summary and
// detail as given (detail "" is not compared), at file:line:column.
func wantOneError(t *testing.T, l *Lab, diags hcl.Diagnostics, summary, detail, file string, line, col int) {
	t.Helper()
	var errs hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("want 1 error %q, got %d:\n%s", summary, len(errs), writeDiags(t, l, diags))
	}
	d := errs[0]
	if d.Summary != summary || (detail != "" && d.Detail != detail) {
		t.Errorf("got %q: %q\nwant %q: %q", d.Summary, d.Detail, summary, detail)
	}
	if d.Subject == nil || d.Subject.Filename != file || d.Subject.Start.Line != line || d.Subject.Start.Column != col {
		t.Errorf("subject %v, want %s:%d:%d", d.Subject, file, line, col)
	}
}

func wantNoError(t *testing.T, l *Lab, diags hcl.Diagnostics) {
	t.Helper()
	if diags.HasErrors() {
		t.Fatalf("unexpected errors:\n%s", writeDiags(t, l, diags))
	}
}

func TestFileSizeLimit(t *testing.T) {
	pad := func(n int) []byte { // smallLab and a comment, n bytes in all
		b := []byte(smallLab + "#")
		b = append(b, strings.Repeat("x", n-len(b)-1)...)
		return append(b, '\n')
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "main.hcl")
	if err := os.WriteFile(path, pad(MaxFileSize), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags := Load(dir, Options{})
	wantNoError(t, l, diags)

	if err := os.WriteFile(path, pad(MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags = Load(dir, Options{})
	wantOneError(t, l, diags, "Cannot read lab file",
		fmt.Sprintf("%s has 1048577 bytes; a lab or variable file may have at most 1048576 (1 MiB).", path), path, 1, 1)

	l, diags = LoadFiles("", map[string][]byte{"main.hcl": pad(MaxFileSize + 1)}, Options{})
	wantOneError(t, l, diags, "Lab file too large",
		"main.hcl has 1048577 bytes; a lab file may have at most 1048576 (1 MiB).", "main.hcl", 1, 1)
}

func TestVarFileLimits(t *testing.T) {
	dir := t.TempDir()
	lab := smallLab + "variable \"v\" { default = \"a\" }\n"
	big := filepath.Join(dir, "big.hcl")
	if err := os.WriteFile(big, []byte("v = \"b\"\n#"+strings.Repeat("x", MaxFileSize-len("v = \"b\"\n#"))), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(lab)}, Options{VarFiles: []string{big}})
	wantNoError(t, l, diags)
	if got := l.Variables["v"].AsString(); got != "b" {
		t.Errorf("v = %q", got)
	}
	if err := os.WriteFile(big, []byte("v = \"b\"\n#"+strings.Repeat("x", MaxFileSize+1-len("v = \"b\"\n#"))), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, detail string }{
		{big, big + " has 1048577 bytes; a lab or variable file may have at most 1048576 (1 MiB)."},
		{"/dev/zero", "/dev/zero is a device, not a regular file."},
		{dir, dir + " is a directory, not a regular file."},
	}
	for _, c := range cases {
		l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(lab)}, Options{VarFiles: []string{c.path}})
		wantOneError(t, l, diags, "Cannot read variable file", c.detail, c.path, 1, 1)
	}
}

// TestNotRegularLabFile: a FIFO named main.hcl is refused at once, never
// opened for a blocking read; so is a directory named x.hcl.
func TestNotRegularLabFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "main.hcl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		l, diags := Load(dir, Options{})
		wantOneError(t, l, diags, "Cannot read lab file", fifo+" is a FIFO (named pipe), not a regular file.", fifo, 1, 1)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}

	dir = t.TempDir()
	sub := filepath.Join(dir, "x.hcl")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	l, diags := Load(dir, Options{})
	wantOneError(t, l, diags, "Cannot read lab file", sub+" is a directory, not a regular file.", sub, 1, 1)
}

func TestNestingLimit(t *testing.T) {
	const nestDetail = "Brackets, braces, parentheses, strings, interpolations, unary operators and conditionals nest more than 100 levels deep here; at most 100 are allowed."
	// The variable block's braces are the first level; the default's
	// value starts at column 26.
	variable := func(expr string) []byte {
		return []byte(smallLab + `variable "v" { default = ` + expr + " }\n")
	}
	const col = 26
	brackets := func(n int) string { return strings.Repeat("[", n) + `"a"` + strings.Repeat("]", n) }
	cases := []struct {
		name string
		expr string
		ok   bool
		col  int // of the first token too deep
	}{
		// block + 98 brackets + the string = 100 levels
		{"brackets at the limit", brackets(MaxNesting - 2), true, 0},
		{"brackets over", brackets(MaxNesting - 1), false, col + MaxNesting - 1},
		{"unary at the limit", strings.Repeat("!", MaxNesting-1) + "true", true, 0},
		{"unary over", strings.Repeat("!", MaxNesting) + "true", false, col + MaxNesting - 1},
		{"minus is binary after a value", "1" + strings.Repeat("-1", 5*MaxNesting), true, 0},
		{"conditionals at the limit", strings.Repeat("true ? 1 : ", MaxNesting-1) + "2", true, 0},
		{"conditionals over", strings.Repeat("true ? 1 : ", MaxNesting) + "2", false, col + (MaxNesting-1)*len("true ? 1 : ") + 5},
		{"hundred thousand", strings.Repeat("[", 100000), false, col + MaxNesting - 1},
		{"interpolations", strings.Repeat(`"${`, 50) + "1" + strings.Repeat(`}"`, 50), false, col + 49*3 + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": variable(c.expr)}, Options{})
			if c.ok {
				wantNoError(t, l, diags)
				return
			}
			wantOneError(t, l, diags, "Nesting too deep", nestDetail, "main.hcl", 8, c.col)
		})
	}

	// The same limit holds for -var values and -var-file files.
	lab := smallLab + "variable \"v\" {\n  type = list(any)\n  default = []\n}\n"
	deep := strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1)
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(lab)}, Options{Vars: []string{"v=" + deep}})
	wantOneError(t, l, diags, "Nesting too deep", nestDetail, "<value for -var v>", 1, MaxNesting+1)
	vf := filepath.Join(t.TempDir(), "v.hcl")
	if err := os.WriteFile(vf, []byte("v = "+deep+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(lab)}, Options{VarFiles: []string{vf}})
	wantOneError(t, l, diags, "Nesting too deep", nestDetail, vf, 1, 5+MaxNesting)
}

func TestForNestingLimit(t *testing.T) {
	two := `[for a in range(3): [for b in range(3): a * b]]`
	three := `[for a in range(1000): [for b in range(1000): [for c in range(1000): c]]]`
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(smallLab + "variable \"v\" { default = " + two + " }\n")}, Options{})
	wantNoError(t, l, diags)
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(smallLab + "variable \"v\" { default = " + three + " }\n")}, Options{})
	wantOneError(t, l, diags, "For expressions nested too deeply",
		"This for expression is nested 3 levels deep; at most 2 are allowed, since every level multiplies the values made.", "main.hcl", 8, 72)
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(smallLab + "variable \"v\" {\n  type = list(any)\n  default = []\n}\n")}, Options{Vars: []string{"v=" + three}})
	wantOneError(t, l, diags, "For expressions nested too deeply",
		"This for expression is nested 3 levels deep; at most 2 are allowed, since every level multiplies the values made.", "<value for -var v>", 1, 47)
}

func TestCellLimit(t *testing.T) {
	lab := func(matrix, extra string) []byte {
		return []byte(labWith("matrix = " + matrix + "\n  guest { mtu = 1000 + matrix.a + matrix.b }\n" + extra))
	}
	// 100 × 100 = 10 000 cells: at the limit, 10 runs each.
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab("{ a = range(100), b = range(100) }", "repeat = 10")}, Options{})
	wantNoError(t, l, diags)

	// 73 × 137 = 10 001 cells.
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": lab("{ a = range(73), b = range(137) }", "")}, Options{})
	wantOneError(t, l, diags, "Too many cells",
		`Experiment "e" has 10001 cells (1 pair × 73 values of matrix.a × 137 values of matrix.b); at most 10000 cells are allowed in one experiment.`,
		"main.hcl", 6, 12)

	// The 10^7 cells.
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": []byte(labWith(
		"matrix = { a = range(1000), b = range(1000), c = range(10) }\n  guest { mtu = 1000 + matrix.a + matrix.b + matrix.c }"))}, Options{})
	wantOneError(t, l, diags, "Too many cells",
		`Experiment "e" has 10000000 cells (1 pair × 1000 values of matrix.a × 1000 values of matrix.b × 10 values of matrix.c); at most 10000 cells are allowed in one experiment.`,
		"main.hcl", 6, 12)

	// Runs: 10 000 cells × (10 + 1) = 110 000 runs.
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": lab("{ a = range(100), b = range(100) }", "repeat = 10\n  warmup = 1")}, Options{})
	wantOneError(t, l, diags, "Too many runs",
		`Experiment "e" has 110000 runs (10000 cells × (repeat 10 + warmup 1)), which brings the lab to 110000 runs; at most 100000 are allowed over all experiments.`,
		"main.hcl", 8, 10)
}

func TestMatrixValuesOneRendering(t *testing.T) {
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(labWith(`matrix = { a = [1500, "1500"] }
  guest { mtu = matrix.a }`))}, Options{})
	wantOneError(t, l, diags, "Duplicate matrix value", `matrix.a lists "1500" more than once.`, "main.hcl", 6, 25)
}

// TestSysctlNames: path-escaping names are refused everywhere; names
// outside net.* only on guests of the local provider.
func TestSysctlNames(t *testing.T) {
	lab := func(provider, key string) []byte {
		return []byte(`lab "x" {}
provider "` + provider + `" "p" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  guest { sysctl = { "` + key + `" = 1 } }
  iperf3 {}
}
`)
	}
	const empty = "its parts, separated by \".\" or \"/\", must not be empty (no \"..\", no leading, trailing or doubled separator)."
	tests := []struct {
		provider, key, summary, detail string
	}{
		{"local", "net.ipv4.tcp_ecn", "", ""},
		{"local", "net/ipv4/tcp_ecn", "", ""},
		{"vsphere", "kernel.printk_ratelimit", "", ""},
		{"vsphere", "kern.ipc.maxsockbuf", "", ""},
		{"local", "kernel.printk_ratelimit", "Sysctl not namespaced",
			`"kernel.printk_ratelimit" is not a net.* sysctl: the local provider's guests are network namespaces of this host, so setting it would change the host's own value. Only net.* sysctls may be set on them.`},
		{"local", "network.x", "Sysctl not namespaced", ""},
		{"vsphere", "net..ipv4", "Invalid sysctl name", `"net..ipv4" is not a sysctl name: ` + empty},
		{"vsphere", "/etc/shadow", "Invalid sysctl name", `"/etc/shadow" is not a sysctl name: ` + empty},
		{"vsphere", "net/ipv4/../../kernel/x", "Invalid sysctl name", ""},
		{"vsphere", "net.ipv4.", "Invalid sysctl name", ""},
		{"vsphere", "net//ipv4", "Invalid sysctl name", ""},
	}
	for _, tt := range tests {
		// The local back end declares that its guests share the host's
		// kernel (providers.SharesHostKernel); spec only asks.
		opts := Options{SharesHostKernel: func(typ string) bool { return typ == "local" }}
		l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab(tt.provider, tt.key)}, opts)
		if tt.summary == "" {
			wantNoError(t, l, diags)
			continue
		}
		wantOneError(t, l, diags, tt.summary, tt.detail, "main.hcl", 7, 20)
	}
}

func TestNoExperiment(t *testing.T) {
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte("lab \"x\" {}\ntemplate \"t\" {}\n")}, Options{})
	wantOneError(t, l, diags, "No experiment",
		`The lab declares no experiment block, so there is nothing to plan or run: add experiment "<name>" { pairs = [pair.<name>] … }.`, "main.hcl", 1, 1)
}

// TestFirewallRuleset: a ruleset that would close lab's table or include
// a file is refused at the very character, when written literally.
func TestFirewallRuleset(t *testing.T) {
	lab := func(firewall string) []byte {
		return []byte(`lab "x" {}
template "t" {}
pair "p" {
  template = template.t
  via      = template.t
}
experiment "e" {
  pairs = [pair.p]
  router {
    firewall = ` + firewall + `
  }
  iperf3 {}
}
`)
	}
	ok := "<<EOT\nchain c {\n  comment \"}\"\n}\nEOT\n"
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab(ok)}, Options{})
	wantNoError(t, l, diags)

	escape := "<<EOT\nchain c {\n}\n  }\ntable inet evil { }\nEOT\n"
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": lab(escape)}, Options{})
	wantOneError(t, l, diags, "Invalid firewall ruleset",
		`"}" closes a brace the ruleset did not open: it would end lab's table (line 3, column 3 of the ruleset). A ruleset is the body of lab's table inet lab_fw: chains, sets and rules only.`,
		"main.hcl", 13, 3)

	// Escapes in a quoted string: the error points at the string.
	l, diags = LoadFiles("", map[string][]byte{"main.hcl": lab(`"chain c {}\n}\ninclude \"/etc/passwd\""`)}, Options{})
	wantOneError(t, l, diags, "Invalid firewall ruleset", "", "main.hcl", 10, 16)
}

func TestDiagnosticsCapped(t *testing.T) {
	dups := func(n int) []byte { // n duplicate experiments after the first
		return []byte(smallLab + strings.Repeat("experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n", n))
	}
	_, diags := LoadFiles("", map[string][]byte{"main.hcl": dups(MaxDiagnostics)}, Options{})
	if len(diags) != MaxDiagnostics || diags[len(diags)-1].Summary != "Duplicate experiment" {
		t.Fatalf("at the limit: %d diagnostics, last %q", len(diags), diags[len(diags)-1].Summary)
	}
	_, diags = LoadFiles("", map[string][]byte{"main.hcl": dups(MaxDiagnostics + 3)}, Options{})
	last := diags[len(diags)-1]
	if len(diags) != MaxDiagnostics+1 || last.Summary != "Too many problems" || last.Detail != "3 more diagnostics are not shown; fix the ones above first." ||
		last.Severity != hcl.DiagError || last.Subject == nil {
		t.Fatalf("over the limit: %d diagnostics, last %+v", len(diags), last)
	}
}

func TestFileFunctionLimits(t *testing.T) {
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact.txt")
	over := filepath.Join(dir, "over.txt")
	fifo := filepath.Join(dir, "fifo")
	os.WriteFile(exact, []byte(strings.Repeat("a", MaxFileSize)), 0o644)
	os.WriteFile(over, []byte(strings.Repeat("a", MaxFileSize+1)), 0o644)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	lab := func(path string) []byte {
		return []byte(strings.Replace(smallLab, `lab "x" {}`, `lab "x" { description = trimspace(file("`+path+`")) }`, 1))
	}
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab(exact)}, Options{})
	wantNoError(t, l, diags)
	if len(l.Description) != MaxFileSize {
		t.Errorf("description has %d bytes", len(l.Description))
	}
	for path, want := range map[string]string{
		over:        `Call to function "file" failed: ` + over + " is larger than 1048576 bytes.",
		fifo:        `Call to function "file" failed: ` + fifo + " is not a regular file.",
		"/dev/zero": `Call to function "file" failed: /dev/zero is not a regular file.`,
		dir:         `Call to function "file" failed: ` + dir + " is not a regular file.",
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab(path)}, Options{})
			wantOneError(t, l, diags, "Error in function call", want, "main.hcl", 1, 35)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("file(%q) blocked", path)
		}
	}
}

// TestDiagnosticsAsHCL: on clean sources the writer prints byte for byte
// what HCL's own text writer prints, with and without color.
func TestDiagnosticsAsHCL(t *testing.T) {
	srcs := []string{
		"lab \"x\" {\n  colour = 1\n}\n",
		"lab \"x\" {\n  description = [\n    1 + \"a\",\n  ]\n}\n",
		"variable \"v\" { default = \"a\" }\nlab \"x\" { description = var.v + 1 }\n",
		"lab \"x\" {\r\n  colour = 1\r\n}\r\n",
		"lab \"x\" {\n",
		smallLab + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n",
	}
	for _, src := range srcs {
		for _, color := range []bool{false, true} {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
			if len(diags) == 0 {
				t.Fatalf("%q: no diagnostics", src)
			}
			var got, want strings.Builder
			if err := l.WriteDiagnostics(&got, diags, 78, color); err != nil {
				t.Fatal(err)
			}
			if err := hcl.NewDiagnosticTextWriter(&want, l.Files, 78, color).WriteDiagnostics(diags); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%q (color %t):\ngot:\n%s\nwant (HCL):\n%s", src, color, got.String(), want.String())
			}
		}
	}
}

// TestHiddenSource: a lab file that is a symbolic link out of the lab
// directory (or into /etc) is still reported as not HCL, at its line, but
// none of its lines are printed, in text or JSON (the rule itself is
// diagtext.HiddenSource's, tested there).
func TestHiddenSource(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target string // target "" is a regular file in the directory
		hidden       string
	}{
		{"regular file", "", ""},
		{"link inside the directory", "sub/secret", ""},
		{"link outside the directory", outside, "it is a symbolic link to a file outside the lab directory"},
		{"relative link outside", "../secret", "it is a symbolic link to a file outside the lab directory"},
		{"link into /etc", "/etc/passwd", "it is a symbolic link into /etc"},
		{"dangling link", "/nonexistent/x.hcl", "it is a symbolic link that does not resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(filepath.Dir(outside), "lab")
			if tt.target != "" && !strings.HasPrefix(tt.target, "/") && !strings.HasPrefix(tt.target, "../") {
				dir = t.TempDir()
				if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, tt.target), []byte("root:$6$SECRETHASH:19000\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(filepath.Dir(outside), "lab")) })
			name := filepath.Join(dir, "main.hcl")
			var err error
			if tt.target == "" {
				err = os.WriteFile(name, []byte("root:$6$SECRETHASH:19000\n"), 0o600)
			} else {
				err = os.Symlink(tt.target, name)
			}
			if err != nil {
				t.Fatal(err)
			}
			l, diags := Load(dir, Options{})
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			var b strings.Builder
			if err := l.WriteDiagnostics(&b, diags, 0, false); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "on "+name+" line 1") {
				t.Errorf("the error does not name the file and line:\n%s", out)
			}
			if tt.hidden == "" {
				if tt.target != "" || strings.Contains(out, "SECRETHASH") {
					return // shown: the file is the lab's own
				}
				t.Errorf("source of a regular file not shown:\n%s", out)
				return
			}
			if strings.Contains(out, "SECRETHASH") || strings.Contains(out, "root:") && tt.target == "/etc/passwd" {
				t.Errorf("source of a hidden file printed:\n%s", out)
			}
			if !strings.Contains(out, "(source not shown: "+tt.hidden+")") && !strings.Contains(out, "Cannot read lab file") {
				t.Errorf("no reason given:\n%s", out)
			}
			for _, d := range diags {
				if d.Subject != nil && l.Snippet(*d.Subject) != "" {
					t.Errorf("JSON snippet of a hidden file: %q", l.Snippet(*d.Subject))
				}
			}
		})
	}
}

// TestSysctlSameRuleAsGuests: validate accepts a sysctl exactly when the
// guest driver of the template's OS would apply it (one rule, in guest),
// and says why at the attribute.
func TestSysctlSameRuleAsGuests(t *testing.T) {
	lab := func(os, key, value string) []byte {
		return []byte(`lab "x" {}
provider "vsphere" "p" {}
template "t" { os = "` + os + `" }
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  guest { sysctl = { "` + key + `" = "` + value + `" } }
  iperf3 {}
}
`)
	}
	tests := []struct {
		os, key, value, summary string
	}{
		{"linux", "net.core.rmem_max", "4194304", ""},
		{"linux", "net.ipv4.tcp_rmem", "4096 131072 6291456", ""},
		{"linux", "net.ipv4.ip_local_port_range", "1024 65000", ""},
		{"linux", "net.core.rmem_max", "1=2", "Invalid sysctl value"},
		{"linux", "net.core.rmem_max", "a=", "Invalid sysctl value"},
		{"linux", "net.core.rmem_max", "", "Invalid sysctl value"},
		{"linux", "net.core.rmem_max", "-x", "Invalid sysctl value"},
		{"linux", "net.core.rmem_max", "-1", ""},
		{"linux", "net.core.rmem_max", "50%", ""},
		{"linux", "_net.x", "1", "Invalid sysctl name"},
		{"linux", "-net.x", "1", "Invalid sysctl name"},
		{"freebsd", "kern.ipc.maxsockbuf", "16777216", ""},
		{"freebsd", "net/inet/tcp/sendspace", "1", "Invalid sysctl name"},
		{"freebsd", "kern", "1", "Invalid sysctl name"},
		{"freebsd", "kern.ipc.maxsockbuf", "1=2", "Invalid sysctl value"},
	}
	for _, tt := range tests {
		t.Run(tt.os+" "+tt.key+"="+tt.value, func(t *testing.T) {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab(tt.os, tt.key, tt.value)}, Options{})
			s := guest.Settings{Sysctl: map[string]string{tt.key: tt.value}}
			applyErr := linux.Validate("eth1", s)
			if tt.os == "freebsd" {
				applyErr = freebsd.Validate("vtnet1", s)
			}
			if (applyErr == nil) != (tt.summary == "") {
				t.Errorf("the %s driver says %v; the test expects %q", tt.os, applyErr, tt.summary)
			}
			if tt.summary == "" {
				wantNoError(t, l, diags)
				return
			}
			wantOneError(t, l, diags, tt.summary, "", "main.hcl", 7, 20)
		})
	}
}

// TestRatioOverItself: a ratio whose of and over select the same cells
// divides every cell by itself; it is refused at over.
func TestRatioOverItself(t *testing.T) {
	lab := func(of, over string) []byte {
		return []byte(`lab "x" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = { lro = [true, false], mtu = [1500, 9000] }
  guest {
    lro = matrix.lro
    mtu = matrix.mtu
  }
  iperf3 {}
  expect "x" {
    ratio = { of = "` + of + `", over = "` + over + `", at_least = 1 }
  }
}
`)
	}
	tests := []struct{ of, over, want string }{
		{"lro=true", "lro=false", ""},
		{"mtu=9000", "mtu=1500", ""},
		{"lro=true", "lro=true", "Ratio of a cell over itself"},
		{"lro=true", " lro = true", "Ratio of a cell over itself"},
		{"mtu=1500", "mtu=1500", "Ratio of a cell over itself"},
		{"pair=p", "pair=p", "Ratio of a cell over itself"},
	}
	for _, tt := range tests {
		t.Run(tt.of+" over "+tt.over, func(t *testing.T) {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": lab(tt.of, tt.over)}, Options{})
			if tt.want == "" {
				wantNoError(t, l, diags)
				return
			}
			col := 5 + len(`ratio = { of = "`+tt.of+`", over = `)
			wantOneError(t, l, diags, tt.want, "", "main.hcl", 13, col)
		})
	}
}

// TestGuestMTUAboveLink: a guest MTU above its pair's link MTU (both
// known at validate) is refused at the guest's mtu.
func TestGuestMTUAboveLink(t *testing.T) {
	lab := func(link, settings string) []byte {
		matrix := "# no matrix"
		if strings.Contains(settings, "matrix") {
			matrix = "matrix = { m = [1500, 9000] }"
		}
		return []byte(`lab "x" {}
template "t" {}
pair "p" {
  template = template.t
  ` + link + `
}
experiment "e" {
  pairs = [pair.p]
  ` + matrix + `
  ` + settings + `
  iperf3 {}
}
`)
	}
	tests := []struct {
		name, link, settings string
		col                  int // of the error on line 10; 0: valid
	}{
		{"no link MTU", "", "guest { mtu = 9000 }", 0},
		{"equal", "link { mtu = 9000 }", "guest { mtu = 9000 }", 0},
		{"below", "link { mtu = 9000 }", "server { mtu = matrix.m }", 0},
		{"above", "link { mtu = 1500 }", "guest { mtu = 9000 }", 17},
		{"above in one cell", "link { mtu = 1500 }", "client { mtu = matrix.m }", 18},
		{"router above", "link { mtu = 1500 }", "router { mtu = 1501 }", 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := lab(tt.link, tt.settings)
			if strings.HasPrefix(tt.settings, "router") {
				src = []byte(strings.Replace(string(src), "template = template.t", "template = template.t\n  via = template.t", 1))
			}
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": src}, Options{})
			if tt.col == 0 {
				wantNoError(t, l, diags)
				return
			}
			line := 10
			if strings.HasPrefix(tt.settings, "router") {
				line = 11
			}
			wantOneError(t, l, diags, "Guest MTU above the link MTU", "", "main.hcl", line, tt.col)
		})
	}
}

// TestCheckRulesets: a firewall ruleset this host's nft cannot parse is an
// error at the place nft names (when written literally); without nft it
// is a warning that the ruleset was not checked.
func TestCheckRulesets(t *testing.T) {
	lab := func(firewall string) []byte {
		return []byte(`lab "x" {}
template "t" {}
pair "p" {
  template = template.t
  via      = template.t
}
experiment "e" {
  pairs = [pair.p]
  matrix = { fw = ["ok", "bad"] }
  router {
    firewall = ` + firewall + `
  }
  iperf3 {}
}
`)
	}
	heredoc := "<<EOT\nchain c {\n  type filter hook forward priority 0;\n  tcp dprot 5201 accept\n}\nEOT\n"
	tests := []struct {
		name, firewall string
		severity       hcl.DiagnosticSeverity
		line, col      int
		needsNft       bool
	}{
		{"valid", `matrix.fw == "ok" ? "chain c {\n}" : "chain d {\n}"`, 0, 0, 0, true},
		{"heredoc with a typo", heredoc, hcl.DiagError, 14, 7, true},
		{"one cell's ruleset", `matrix.fw == "ok" ? "chain c {\n}" : "chain c {\n  counter acept\n}"`, hcl.DiagError, 11, 16, true},
		{"jump to no chain", `"chain c {\n  jump nochain\n}"`, hcl.DiagWarning, 11, 16, true},
		{"no nft", heredoc, hcl.DiagWarning, 11, 16, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsNft {
				if _, err := exec.LookPath("nft"); err != nil || os.Geteuid() != 0 {
					t.Skip("needs root and nft (package nftables)")
				}
			} else {
				t.Setenv("PATH", t.TempDir())
			}
			src := lab(tt.firewall)
			if !strings.Contains(tt.firewall, "matrix") {
				src = []byte(strings.Replace(string(src), `  matrix = { fw = ["ok", "bad"] }`, "  # no matrix", 1))
			}
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": src}, Options{})
			wantNoError(t, l, diags)
			diags = l.CheckRulesets(context.Background())
			if tt.severity == 0 {
				if len(diags) > 0 {
					t.Fatalf("unexpected:\n%s", writeDiags(t, l, diags))
				}
				return
			}
			if len(diags) != 1 || diags[0].Severity != tt.severity {
				t.Fatalf("want one diagnostic of severity %d, got:\n%s", tt.severity, writeDiags(t, l, diags))
			}
			if s := diags[0].Subject; s == nil || s.Start.Line != tt.line || s.Start.Column != tt.col {
				t.Errorf("at %v, want main.hcl:%d:%d:\n%s", s, tt.line, tt.col, writeDiags(t, l, diags))
			}
		})
	}
}

// TestCheckRulesetsBounded: a matrix of many rulesets has nft check the
// first MaxNftChecks and says the rest were not checked.
func TestCheckRulesetsBounded(t *testing.T) {
	if _, err := exec.LookPath("nft"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and nft (package nftables)")
	}
	src := `lab "x" {}
template "t" {}
pair "p" {
  template = template.t
  via      = template.t
}
experiment "e" {
  pairs = [pair.p]
  matrix = { n = range(` + fmt.Sprint(MaxNftChecks+5) + `) }
  router {
    firewall = "chain c${matrix.n} {\n}"
  }
  iperf3 {}
}
`
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
	wantNoError(t, l, diags)
	if n := len(l.Rulesets()); n != MaxNftChecks+5 {
		t.Fatalf("%d rulesets, want %d", n, MaxNftChecks+5)
	}
	start := time.Now()
	diags = l.CheckRulesets(context.Background())
	t.Logf("%d nft -c runs: %s", MaxNftChecks, time.Since(start).Round(time.Millisecond))
	if len(diags) != 1 || diags[0].Summary != "Firewall rulesets not all syntax-checked" || diags[0].Severity != hcl.DiagWarning {
		t.Fatalf("got:\n%s", writeDiags(t, l, diags))
	}
}
