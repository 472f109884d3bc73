package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/diagtext"
)

// hostileHead is a valid lab without experiments; hostile specs add one.
const hostileHead = `lab "h" {}
template "t" {}
pair "p" { template = template.t }
`

// hostileExp wraps body in an experiment that is valid when body is.
func hostileExp(body string) string {
	return hostileHead + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 { duration = \"1s\" }\n" + body + "\n}\n"
}

// routed makes hostileHead's pair go via a router guest.
func routed(src string) string {
	return strings.Replace(src, "pair \"p\" { template = template.t }", "pair \"p\" {\n  template = template.t\n  via      = template.t\n}", 1)
}

// hostileSpecs are inputs from issue 9's list and more like them. ok
// marks the ones that are valid and must plan.
var hostileSpecs = []struct {
	name string
	src  string
	args []string
	ok   bool
}{
	{"100k brackets", `lab "h" { description = ` + strings.Repeat("[", 100000) + " }\n", nil, false},
	{"100k braces", `lab "h" { description = ` + strings.Repeat("{a=", 100000) + " }\n", nil, false},
	{"100k parens", `lab "h" { description = ` + strings.Repeat("(", 100000) + " }\n", nil, false},
	{"100k interpolations", `lab "h" { description = ` + strings.Repeat(`"${`, 50000) + " }\n", nil, false},
	{"100k bangs", hostileExp("guest { lro = " + strings.Repeat("!", 100000) + "true }"), nil, false},
	{"100k minus", hostileExp("guest { mtu = " + strings.Repeat("- ", 100000) + "1 }"), nil, false},
	{"50k conditionals", hostileExp("guest { mtu = " + strings.Repeat("true ? 1500 : ", 50000) + "1 }"), nil, false},
	{"for bomb", hostileHead + "variable \"v\" { default = [for a in range(1000): [for b in range(1000): [for c in range(1000): c]]] }\n" + hostileExp(""), nil, false},
	{"for bomb in matrix", hostileExp("matrix = { a = [for a in range(10): [for b in range(10): [for c in range(10): c]]] }"), nil, false},
	{"range bomb", hostileExp("matrix = { a = range(100000000) }\nguest { mtu = matrix.a }"), nil, false},
	{"10^7 cells", hostileExp("matrix = { a = range(1000), b = range(1000), c = range(10) }\nguest { mtu = 1000 + matrix.a + matrix.b + matrix.c }"), nil, false},
	{"10^5 cells", hostileExp("matrix = { a = range(1000), b = range(100) }\nguest { mtu = 1000 + matrix.a + matrix.b }"), nil, false},
	{"10^6 runs", hostileExp("matrix = { a = range(100), b = range(100) }\nrepeat = 100\nguest { mtu = 1000 + matrix.a + matrix.b }"), nil, false},
	{"10k matrix values", hostileExp("matrix = { a = concat(" + strings.Repeat("range(1000),", 10) + "[1]) }\nguest { mtu = 1000 + matrix.a }"), nil, false},
	{"300-character key", hostileExp("matrix = { " + strings.Repeat("k", 300) + " = [1500, 9000] }\nguest { mtu = matrix." + strings.Repeat("k", 300) + " }"), nil, true},
	{"keys that sanitize alike", hostileExp(`matrix = { a = ["1_a_b=2", "1"], a_b = ["2", "2_a_b=2"] }` + "\nclient { sysctl = { \"net.core.somaxconn\" = strlen(\"${matrix.a}${matrix.a_b}\") } }"), nil, true},
	{"values that sanitize alike", hostileExp(`matrix = { s = ["x y", "x-y", "x/y", "x,y", "x_y"] }` + "\nclient { sysctl = { \"net.core.somaxconn\" = strlen(matrix.s) } }"), nil, true},
	{"cell keys print alike", hostileExp(`matrix = { a = ["x,b=1", "x"], b = ["2", "1,b=2"] }` + "\nclient { sysctl = { \"net.core.somaxconn\" = strlen(\"${matrix.a}${matrix.b}\") } }"), nil, false},
	{"1 and \"1\"", hostileExp(`matrix = { m = [1500, "1500"] }` + "\nguest { mtu = matrix.m }"), nil, false},
	{"sysctl ..", hostileExp(`guest { sysctl = { "net.ipv4..x" = 1 } }`), nil, false},
	{"sysctl /", hostileExp(`guest { sysctl = { "/proc/sys/kernel/x" = 1 } }`), nil, false},
	{"sysctl slash escape", hostileExp(`guest { sysctl = { "net/../kernel/x" = 1 } }`), nil, false},
	{"sysctl trailing dot", hostileExp(`guest { sysctl = { "net.ipv4." = 1 } }`), nil, false},
	{"sysctl host-wide on local", hostileExp(`guest { sysctl = { "kernel.printk_ratelimit" = 10 } }`), nil, false},
	{"sysctl vm on local", hostileExp(`server { sysctl = { "vm.swappiness" = 10 } }`), nil, false},
	{"sysctl value with =", hostileExp(`guest { sysctl = { "net.core.rmem_max" = "1=2" } }`), nil, false},
	{"sysctl empty value", hostileExp(`guest { sysctl = { "net.core.rmem_max" = "" } }`), nil, false},
	{"sysctl injection", hostileExp(`guest { sysctl = { "net.core.rmem_max" = "1; reboot" } }`), nil, false},
	{"cpus -5", `provider "local" "default" { cpus = -5 }` + "\n" + hostileExp(""), nil, false},
	{"cpus 0", `provider "local" "default" { cpus = 0 }` + "\n" + hostileExp(""), nil, false},
	{"vcpu -1", strings.Replace(hostileExp(""), "template = template.t }", "template = template.t\n  vcpu = -1\n}", 1), nil, false},
	{"repeat -1", hostileExp("repeat = -1"), nil, false},
	{"warmup -1", hostileExp("warmup = -1"), nil, false},
	{"parallel 0", strings.Replace(hostileExp(""), `iperf3 { duration = "1s" }`, `iperf3 { parallel = 0 }`, 1), nil, false},
	{"negative duration", strings.Replace(hostileExp(""), `"1s"`, `"-1s"`, 1), nil, false},
	{"huge duration", strings.Replace(hostileExp(""), `"1s"`, `"100000000h"`, 1), nil, false},
	{"no experiment", hostileHead, nil, false},
	{"empty file", "", nil, false},
	{"only comments", "# nothing\n", nil, false},
	{"NUL bytes", "lab \"h\" {}\x00\x00\n", nil, false},
	{"invalid UTF-8", "lab \"h\xff\" {}\n", nil, false},
	{"unterminated string", `lab "h {}` + "\n", nil, false},
	{"unterminated heredoc", "lab \"h\" { description = <<EOT\nx\n}\n", nil, false},
	{"CRLF", strings.ReplaceAll(hostileExp(""), "\n", "\r\n"), nil, true},
	{"lab name injection", `lab "h; rm -rf /" {}` + "\n", nil, false},
	{"source with newline", `lab "h" {}` + "\ntemplate \"t\" { source = \"a\\nb\" }\n", nil, false},
	{"mtu 1e400", hostileExp("guest { mtu = 1e400 }"), nil, false},
	{"sensitive in experiment", hostileHead + "variable \"s\" {\n  sensitive = true\n  default = \"x\"\n}\n" + "experiment \"e\" {\n  pairs = [pair.p]\n  description = var.s\n  iperf3 {}\n}\n", nil, false},
	{"ratio over itself", hostileExp("matrix = { m = [1500, 9000] }\nguest { mtu = matrix.m }\nexpect \"x\" {\n  ratio = { of = \"m=9000\", over = \"m = 9000\", at_least = 1 }\n}"), nil, false},
	{"guest MTU above the link's", strings.Replace(hostileExp("guest { mtu = 9000 }"), "pair \"p\" { template = template.t }", "pair \"p\" {\n  template = template.t\n  link { mtu = 1500 }\n}", 1), nil, false},
	{"firewall closes table", routed(hostileExp(`router { firewall = "}\ntable inet evil { chain c { } }" }`)), nil, false},
	{"firewall include", routed(hostileExp(`router { firewall = "include \"/etc/shadow\"" }`)), nil, false},
	{"firewall unclosed", routed(hostileExp(`router { firewall = "chain c {" }`)), nil, false},
	{"file /dev/zero", `lab "h" { description = file("/dev/zero") }` + "\n", nil, false},
	{"file directory", `lab "h" { description = file("/") }` + "\n", nil, false},
	{"file /proc/self/mem", `lab "h" { description = file("/proc/self/mem") }` + "\n", nil, false},
	{"var-file /dev/zero", hostileExp(""), []string{"-var-file=/dev/zero"}, false},
	{"var-file directory", hostileExp(""), []string{"-var-file=/"}, false},
	{"var-file missing", hostileExp(""), []string{"-var-file=/nonexistent"}, false},
	{"-var deep", hostileHead + "variable \"v\" {\n  type = list(any)\n  default = []\n}\n" + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n",
		[]string{"-var", "v=" + strings.Repeat("[", 50000)}, false},
	{"-var for bomb", hostileHead + "variable \"v\" {\n  type = list(any)\n  default = []\n}\n" + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n",
		[]string{"-var", "v=[for a in range(1000): [for b in range(1000): [for c in range(1000): c]]]"}, false},
	{"10k experiments", hostileHead + strings.Repeat("experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n", 10000), nil, false},
	{"jsondecode deep", `lab "h" { description = jsonencode(jsondecode("` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `")) }` + "\n", nil, false},
	{"regex bomb", `lab "h" { description = regex("(a{1000}){1000}", "a") }` + "\n", nil, false},
}

// hostileWant is the error summary some hostile specs must be refused
// with (a refusal for another reason would hide the check they are for).
var hostileWant = map[string]string{
	"sysctl value with =":        "Error: Invalid sysctl value",
	"sysctl empty value":         "Error: Invalid sysctl value",
	"ratio over itself":          "Error: Ratio of a cell over itself",
	"guest MTU above the link's": "Error: Guest MTU above the link MTU",
	"firewall closes table":      "Error: Invalid firewall ruleset",
	"firewall include":           "Error: Invalid firewall ruleset",
	"firewall unclosed":          "Error: Invalid firewall ruleset",
}

// TestValidateHostileBattery runs every hostile spec through validate
// (and plan when valid): never a crash or a hang; each refusal has at
// least one error, and every error names a file and line.
func TestValidateHostileBattery(t *testing.T) {
	located := regexp.MustCompile(`(?m)^Error: .*\n\n  on .+ line \d+`)
	refused := 0
	for _, h := range hostileSpecs {
		t.Run(h.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(h.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			verb := "validate"
			if h.ok {
				verb = "plan"
			}
			code := Main(append([]string{"-chdir=" + dir, verb}, h.args...), strings.NewReader(""), &stdout, &stderr, nil)
			out := stderr.String()
			if h.ok {
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, out)
				}
				return
			}
			if want := hostileWant[h.name]; want != "" && !strings.Contains(out, want) {
				t.Errorf("want %q:\n%s", want, truncateOut(out))
			}
			errs := strings.Count(out, "Error: ")
			if code != 1 || errs == 0 || len(located.FindAllString(out, -1)) != errs {
				t.Fatalf("exit %d, %d errors, %d located:\n%s", code, errs, len(located.FindAllString(out, -1)), truncateOut(out))
			}
			refused++
		})
	}
	t.Logf("%d hostile specs: %d refused with file:line errors, %d valid and planned", len(hostileSpecs), refused, len(hostileSpecs)-refused)
}

func truncateOut(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestValidateHostileOutput: what validate prints about a hostile spec is
// bounded (a 400 KB line gave 400 KB of stderr), carries no control byte
// from the spec (ESC sequences reached the terminal) and no line of a
// .hcl symlinked out of the lab directory; -json snippets are cut too.
func TestValidateHostileOutput(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(secret, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 400<<10)
	tests := []struct {
		name    string
		src     string // main.hcl; "" makes it a symlink to secret
		want    string // in stderr
		absent  string // not in stderr nor in the JSON
		maxText int    // bytes of stderr
	}{
		{"400 KB line", hostileExp("description = \"" + long + "\" + 1"), "Invalid operand", long[:300], 3000},
		{"400 KB line and an error after it", hostileExp("description = \"" + long + "\"\nguest { mtu = \"big\" }"), `mtu = "big"`, long[:300], 3000},
		{"ESC in a string", hostileExp("description = \"\x1b[2J\x1b]0;owned\x07\" + 1"), `\x1b[2J\x1b]0;owned\x07`, "\x1b", 3000},
		{"ESC in an identifier", hostileExp("guest { m\x1b[31mtu = 1 }"), `m\x1b[31mtu`, "\x1b", 6000},
		{"ESC in a label", "lab \"\x1b[2J\" {}\n", `\x1b[2J`, "\x1b", 3000},
		{"symlink out of the directory", "", "(source not shown: it is a symbolic link to a file outside the lab directory)", "SECRETHASH", 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "main.hcl")
			var err error
			if tt.src == "" {
				err = os.Symlink(secret, name)
			} else {
				err = os.WriteFile(name, []byte(tt.src), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"-chdir=" + dir, "validate"}, strings.NewReader(""), &stdout, &stderr, nil); code != 1 {
				t.Fatalf("exit %d:\n%s", code, truncateOut(stderr.String()))
			}
			out := stderr.String()
			if len(out) > tt.maxText {
				t.Errorf("%d bytes of stderr, want at most %d:\n%s", len(out), tt.maxText, truncateOut(out))
			}
			if !strings.Contains(out, tt.want) || strings.Contains(out, tt.absent) {
				t.Errorf("want %q and not %q in:\n%s", tt.want, truncateOut(tt.absent), truncateOut(out))
			}
			if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
				t.Errorf("control byte %q at %d of stderr", out[i], i)
			}
			stdout.Reset()
			Main([]string{"-chdir=" + dir, "validate", "-json"}, strings.NewReader(""), &stdout, &stderr, nil)
			var v view.ValidateJSON
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
				t.Fatalf("-json: %v", err)
			}
			if bytes.ContainsFunc(stdout.Bytes(), func(r rune) bool { return r < 0x20 && r != '\n' }) {
				t.Errorf("-json wrote a raw control byte")
			}
			for _, d := range v.Diagnostics {
				// Decoded JSON strings hold what the spec holds (an editor
				// shows it); only size and hidden sources are checked.
				if d.Snippet == nil {
					continue // the source is not shown
				}
				texts := []string{d.Snippet.Code}
				if d.Snippet.Context != nil {
					texts = append(texts, *d.Snippet.Context)
				}
				for _, text := range texts {
					if n := len([]rune(text)); n > 2*diagtext.MaxSnippetWidth+10 || tt.absent != "\x1b" && strings.Contains(text, tt.absent) {
						t.Errorf("-json snippet of %d characters: %.300q", n, text)
					}
				}
			}
		})
	}
}

// TestValidateFirewallNft: a ruleset this host's nft cannot parse is
// refused by validate and by plan, at its line, before apply would have
// had the guest's nft refuse it; without nft both say it was not checked.
func TestValidateFirewallNft(t *testing.T) {
	src := routed(hostileExp("router {\n  firewall = <<EOT\nchain c {\n  tcp dprot 5201 accept\n}\nEOT\n}"))
	_, lookErr := exec.LookPath("nft")
	haveNft := lookErr == nil && os.Geteuid() == 0
	for _, verb := range []string{"validate", "plan"} {
		for _, withNft := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s nft=%t", verb, withNft), func(t *testing.T) {
				if withNft && !haveNft {
					t.Skip("needs root and nft (package nftables)")
				}
				if !withNft {
					t.Setenv("PATH", t.TempDir())
				}
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				var stdout, stderr bytes.Buffer
				code := Main([]string{"-chdir=" + dir, verb}, strings.NewReader(""), &stdout, &stderr, nil)
				out := stderr.String()
				want, wantCode := "Error: Invalid firewall ruleset\n\n  on "+filepath.Join(dir, "main.hcl")+" line 13", 1
				if !withNft {
					want, wantCode = "Warning: Firewall ruleset not syntax-checked", 0
				}
				if code != wantCode || !strings.Contains(out, want) {
					t.Fatalf("exit %d, want %d and %q:\n%s", code, wantCode, want, out)
				}
			})
		}
	}
}
