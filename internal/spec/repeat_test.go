package spec

import (
	"strings"
	"testing"
)

func TestRepeatForms(t *testing.T) {
	tests := []struct {
		repeat   string
		wantErr  string
		min, max int
		until    float64
		verdict  bool
	}{
		{repeat: `5`, max: 5},
		{repeat: `{ min = 3, max = 20, until = "ci < 3%" }`, min: 3, max: 20, until: 0.03},
		{repeat: `{ min = 4, max = 4, until = "ci<0.5%" }`, min: 4, max: 4, until: 0.005},
		{repeat: `{ min = 3, max = 12, until = "verdict" }`, min: 3, max: 12, verdict: true},
		{repeat: `{ min = 2, max = 20, until = "ci < 3%" }`, wantErr: "repeat.min"},
		{repeat: `{ min = 5, max = 4, until = "ci < 3%" }`, wantErr: "repeat.max"},
		{repeat: `{ min = 3, max = 20 }`, wantErr: "until is missing"},
		{repeat: `{ min = 3, max = 20, until = "stddev < 3%" }`, wantErr: `until is "ci < P%"`},
		{repeat: `{ min = 3, max = 20, until = "ci < 0%" }`, wantErr: "between 0 and 100"},
		{repeat: `{ min = 3, max = 20, until = "ci < 3%", every = 2 }`, wantErr: `not "every"`},
		{repeat: `"many"`, wantErr: "repeat"},
	}
	for _, tc := range tests {
		t.Run(tc.repeat, func(t *testing.T) {
			src := `lab "r" {}
template "h" {}
pair "p" { template = template.h }
experiment "e" {
  pairs  = [pair.p]
  repeat = ` + tc.repeat + `
  iperf3 {}
}
`
			lab, diags := LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, Options{})
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Fatalf("diags %v, want %q", diags, tc.wantErr)
				}
				if !strings.Contains(diags.Error(), "lab.hcl:6") {
					t.Errorf("diagnostic does not point at lab.hcl:6: %v", diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			e := lab.Experiments[0]
			if e.MinRepeat != tc.min || e.Repeat != tc.max || e.UntilCI != tc.until || e.UntilVerdict != tc.verdict {
				t.Errorf("min %d max %d until %v verdict %v", e.MinRepeat, e.Repeat, e.UntilCI, e.UntilVerdict)
			}
		})
	}
}
