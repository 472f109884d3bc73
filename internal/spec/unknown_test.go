package spec

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// unknownLab reads a required variable of each kind everywhere a value can
// be written: with Options.UnknownRequired it must load without error
// (validate), and without it report each missing value once.
const unknownLab = `lab "unk" { description = var.desc }
variable "desc" { type = string }
variable "os" { type = string }
variable "user" { type = string }
variable "mem" { type = string }
variable "duration" { type = string }
variable "repeat" { type = number }
variable "rules" { type = number }
variable "mtus" { type = list(number) }
variable "low" { type = number }
variable "obj" { type = object({ vcpu = number, length = string }) }
variable "sysctls" { type = map(string) }
variable "anything" {}
variable "src" {
  type = string
  validation {
    condition     = var.src != ""
    error_message = "src is empty."
  }
}
template "t" {
  os     = var.os
  source = var.src
  ssh {
    user             = var.user
    private_key_file = var.src
  }
}
pair "p" {
  template = template.t
  via      = template.t
  vcpu     = var.obj.vcpu
  memory   = var.mem
  nic { model = var.src }
  link { mtu = var.mtus[0] }
}
experiment "e" {
  pairs  = [pair.p]
  repeat = var.repeat
  matrix = { mtu = var.mtus, fw = ["off", "on"], x = [var.low, 2] }
  guest {
    mtu    = matrix.mtu
    gro    = matrix.x > 1
    sysctl = var.sysctls
    loss   = "${var.low}%"
  }
  server { sysctl = { "net.core.rmem_max" = var.anything } }
  router {
    firewall = {
      off = ""
      on  = join("\n", [for p in range(20000, 20000 + var.rules) : "tcp dport ${p} drop"])
    }[matrix.fw]
  }
  iperf3 {
    duration = var.duration
    omit     = var.duration
    parallel = var.rules > 10 ? 2 : 1
    length   = var.obj.length
  }
  expect "x" {
    where = { fw = "off" }
    ratio = { of = "x=2", over = "mtu=1500", between = [var.low, 1.25] }
  }
}
`

func TestUnknownRequiredValidates(t *testing.T) {
	files := map[string][]byte{"lab.hcl": []byte(unknownLab)}
	lab, diags := LoadFiles("", files, Options{UnknownRequired: true})
	if diags.HasErrors() {
		var b strings.Builder
		_ = lab.WriteDiagnostics(&b, diags, 0, false)
		t.Fatalf("validate mode: %s", b.String())
	}
	tests := []struct {
		name string
		want cty.Type
	}{
		{"desc", cty.String},
		{"repeat", cty.Number},
		{"mtus", cty.List(cty.Number)},
		{"obj", cty.Object(map[string]cty.Type{"vcpu": cty.Number, "length": cty.String})},
		{"anything", cty.DynamicPseudoType},
	}
	for _, tc := range tests {
		v := lab.Variables[tc.name]
		if v.IsKnown() || !v.Type().Equals(tc.want) {
			t.Errorf("var.%s = %#v, want an unknown %s", tc.name, v, tc.want.FriendlyName())
		}
	}
	if e := lab.Experiments[0]; e.Repeat != 1 {
		t.Errorf("an unknown repeat set Repeat to %d, want the default 1", e.Repeat)
	}
	// Every cell evaluates without a panic; unknown settings keep defaults.
	if _, d := lab.Experiments[0].Eval(map[string]cty.Value{"mtu": cty.DynamicVal, "fw": cty.StringVal("on"), "x": cty.NumberIntVal(2)}); d.HasErrors() {
		t.Errorf("Eval with unknowns: %v", d)
	}
}

func TestUnknownRequiredOffReportsEachVariable(t *testing.T) {
	files := map[string][]byte{"lab.hcl": []byte(unknownLab)}
	_, diags := LoadFiles("", files, Options{})
	missing := 0
	for _, d := range diags {
		if d.Summary != "No value for required variable" {
			t.Errorf("cascading error: %s: %s (%s)", d.Summary, d.Detail, d.Subject)
			continue
		}
		missing++
	}
	if missing != 13 {
		t.Errorf("%d missing-variable errors, want 13", missing)
	}
}

// TestUnknownRequiredChecksKnownValues: a value given is still checked.
func TestUnknownRequiredChecksKnownValues(t *testing.T) {
	files := map[string][]byte{"lab.hcl": []byte(unknownLab)}
	tests := []struct{ set, want string }{
		{"os=plan9", "Invalid operating system"},
		{"src=", "src is empty."},
		{"mem=lots", "Invalid memory size"},
		{"duration=ten", "Invalid duration"},
	}
	for _, tc := range tests {
		_, diags := LoadFiles("", files, Options{UnknownRequired: true, Vars: []string{tc.set}})
		if !strings.Contains(diags.Error(), tc.want) {
			t.Errorf("-var %s: %v, want %q", tc.set, diags, tc.want)
		}
	}
}

// TestUnknownRequiredExpect: expect blocks whose values are not known yet
// load in validate's mode and are checked once known.
func TestUnknownRequiredExpect(t *testing.T) {
	const src = `lab "ux" {}
variable "fw" { type = string }
variable "sel" { type = string }
variable "n" { type = number }
variable "tol" { type = string }
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { fw = ["off", "on"], mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  router { }
  iperf3 { duration = "1s" }
  expect "where" {
    where      = { fw = var.fw }
    throughput = { gbps = var.n, tolerance = var.tol }
  }
  expect "ratio" {
    ratio = { of = var.sel, over = "mtu=1500", at_least = var.n }
  }
  expect "retransmits" {
    retransmits = { max = var.n }
  }
}
`
	files := map[string][]byte{"lab.hcl": []byte(strings.Replace(src, "  router { }\n", "", 1))}
	lab, diags := LoadFiles("", files, Options{UnknownRequired: true})
	if diags.HasErrors() {
		var b strings.Builder
		_ = lab.WriteDiagnostics(&b, diags, 0, false)
		t.Fatalf("validate mode: %s", b.String())
	}
	_, diags = LoadFiles("", files, Options{UnknownRequired: true, Vars: []string{"fw=maybe", "sel=mtu=1500", "n=2", "tol=5%"}})
	if !strings.Contains(diags.Error(), "Value not in matrix") {
		t.Errorf("a known value is not checked: %v", diags)
	}
}
