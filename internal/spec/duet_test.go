package spec

import (
	"strings"
	"testing"
)

// design = "duet" takes two equal pairs and two cells and an even repeat
// of 4 or more; everything that would change its order or stop one cell
// alone is refused at its place in the file.
func TestDuetDesign(t *testing.T) {
	tests := []struct {
		name, pairs, attrs string
		wantErr, at        string
		matrix             bool
		design             string
	}{
		{name: "ok", attrs: "repeat = 8"},
		{name: "ok with warmup", attrs: "repeat = 4\n  warmup = 1"},
		{name: "unknown design", design: "trio", attrs: "repeat = 8", wantErr: `design is "duet"`, at: "lab.hcl:14,"},
		{name: "one pair", pairs: "[pair.p]", attrs: "repeat = 8", wantErr: "A duet needs two pairs", at: "lab.hcl:11,"},
		{name: "three pairs", pairs: "[pair.p, pair.q, pair.r]", attrs: "repeat = 8", wantErr: "pairs lists 3", at: "lab.hcl:11,"},
		{name: "pairs differ", pairs: "[pair.p, pair.big]", attrs: "repeat = 8", wantErr: "Duet pairs differ", at: "lab.hcl:11,"},
		{name: "three cells", matrix: true, attrs: "repeat = 8", wantErr: "the matrix has 3", at: "lab.hcl:12,"},
		{name: "no repeat", wantErr: "A duet needs repeat"},
		{name: "odd repeat", attrs: "repeat = 5", wantErr: "not 5", at: "lab.hcl:13,"},
		{name: "two repeats", attrs: "repeat = 2", wantErr: "not 2"},
		{name: "adaptive", attrs: `repeat = { min = 4, max = 20, until = "ci < 3%" }`, wantErr: "Adaptive repeats with a duet"},
		{name: "order", attrs: "repeat = 8\n  order = \"random\"", wantErr: "Duet with order", at: "lab.hcl:14,"},
		{name: "concurrent", attrs: "repeat = 8\n  concurrent = true", wantErr: "Duet with concurrent"},
		{name: "budget", attrs: `budget = "10m"`, wantErr: "Duet with budget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs := tc.pairs
			if pairs == "" {
				pairs = "[pair.p, pair.q]"
			}
			design := tc.design
			if design == "" {
				design = "duet"
			}
			matrix := "{ mtu = [1500, 9000] }"
			if tc.matrix {
				matrix = "{ mtu = [1500, 4000, 9000] }"
			}
			src := `lab "r" {}
template "h" {}
pair "p" { template = template.h }
pair "q" { template = template.h }
pair "r" { template = template.h }
pair "big" {
  template = template.h
  vcpu = 4
}
experiment "e" {
  pairs = ` + pairs + `
  matrix = ` + matrix + `
  ` + tc.attrs + `
  design = "` + design + `"
  guest { mtu = matrix.mtu }
  iperf3 {}
}
`
			lab, diags := LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, Options{})
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Fatalf("diags %v, want %q", diags, tc.wantErr)
				}
				if !strings.Contains(diags.Error(), "lab.hcl:") || tc.at != "" && !strings.Contains(diags.Error(), tc.at) {
					t.Errorf("diagnostic not at %q: %v", tc.at, diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if e := lab.Experiments[0]; e.Design != DesignDuet {
				t.Errorf("design %q, want %q", e.Design, DesignDuet)
			}
		})
	}
}
