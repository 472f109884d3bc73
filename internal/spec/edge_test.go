package spec

import (
	"strings"
	"testing"
)

// TestEdgeCases: odd inputs give exactly one ranged error (never a panic).
func TestEdgeCases(t *testing.T) {
	head := "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n"
	exp := func(body string) string {
		return head + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n" + body + "\n}\n"
	}
	cases := map[string]string{
		"lab without label":      "lab {}\n",
		"provider one label":     "lab \"x\" {}\nprovider \"local\" {}\n",
		"matrix null value":      exp(`matrix = { a = [1, null] }`),
		"matrix of set":          exp(`matrix = { a = toset([1]) }`),
		"matrix not object":      exp(`matrix = [1, 2]`),
		"matrix nested list":     exp(`matrix = { a = [[1]] }`),
		"matrix unknown var":     "variable \"v\" {}\n" + exp(`matrix = { a = var.v }`+"\nguest { mtu = matrix.a }"),
		"matrix duplicate key":   exp(`matrix = { a = [1500], a = [9000] }` + "\nguest { mtu = matrix.a }"),
		"matrix duplicate value": exp(`matrix = { a = [1, 1] }` + "\nguest { mtu = matrix.a }"),
		"pairs not a list":       head + "experiment \"e\" {\n  pairs = pair.p\n  iperf3 {}\n}\n",
		"pairs string":           head + "experiment \"e\" {\n  pairs = [\"p\"]\n  iperf3 {}\n}\n",
		"between one":            exp(`expect "x" { ratio = { of = "pair=p", over = "pair=p", between = [1] } }`),
		"ratio both":             exp(`expect "x" { ratio = { of = "pair=p", over = "pair=p", between = [1, 2], at_least = 1 } }`),
		"ratio bad selector":     exp(`expect "x" { ratio = { of = "p", over = "pair=p", at_least = 1 } }`),
		"where unknown pair":     exp(`expect "x" { where = { pair = "q" }, retransmits = { max = 0 } }`),
		"throughput no gbps":     exp(`expect "x" { throughput = { tolerance = "5%" } }`),
		"throughput extra key":   exp(`expect "x" { throughput = { gbps = 1, foo = 2 } }`),
		"expect empty name":      exp(`expect "" { retransmits = { max = 0 } }`),
		"sysctl not map":         exp(`guest { sysctl = "x" }`),
		"sysctl key bad":         exp(`guest { sysctl = { "A B" = 1 } }`),
		"mtu fraction":           exp(`guest { mtu = 1500.5 }`),
		"mtu huge":               exp(`guest { mtu = 1e400 }`),
		"loss bad":               exp(`guest { loss = "x%" }`),
		"loss method":            exp(`guest { loss_method = "drop" }`),
		"mtu null":               exp(`guest { mtu = null }`),
		"template as string":     "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { template = \"t\" }\n",
		"server only":            "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { server = template.t }\n",
		"template in expr":       exp(`guest { mtu = template.t }`),
		"unknown root":           exp(`guest { mtu = foo.bar }`),
		"file missing":           "lab \"x\" { description = file(\"/nonexistent/x\") }\n",
		"file dir":               "lab \"x\" { description = file(\"/\") }\n",
		"var in default":         "lab \"x\" {}\nvariable \"a\" { default = 1 }\nvariable \"b\" { default = var.a }\n",
		"bad type expr":          "lab \"x\" {}\nvariable \"a\" { type = numbr }\n",
		"repeat zero":            exp(`repeat = 0`),
		"two guest blocks":       exp("guest {}\nguest {}"),
		"hardware bad":           exp(`hardware { vcpu = 0 }`),
		"memory fraction":        "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" {\n template = template.t\n memory = \"1.0001GiB\"\n}\n",
		"ssh port":               "lab \"x\" {}\ntemplate \"t\" {\n ssh { port = 70000 }\n}\n",
	}
	for name, src := range cases {
		l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
		if !diags.HasErrors() {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line == 0 || strings.TrimSpace(d.Detail) == "" {
				t.Errorf("%s: diagnostic without range or detail:\n%s", name, writeDiags(t, l, diags))
			}
		}
		if len(diags) > 1 {
			t.Errorf("%s: want one diagnostic, got %d:\n%s", name, len(diags), writeDiags(t, l, diags))
		}
	}
}
