package spec

import (
	"strings"
	"testing"
	"time"
)

// budget = "10m" runs as many blocks as fit and stops on the verdict:
// it reads as until = "verdict" with min 3 (or repeat's min and max), and
// is refused where blocks or a verdict stop cannot hold.
func TestBudgetForms(t *testing.T) {
	tests := []struct {
		name, attrs string
		wantErr     string
		budget      time.Duration
		min, max    int
	}{
		{name: "alone", attrs: `budget = "10m"`, budget: 10 * time.Minute, min: 3, max: budgetBlocks},
		{name: "with verdict repeats", attrs: "budget = \"90s\"\n  repeat = { min = 4, max = 30, until = \"verdict\" }", budget: 90 * time.Second, min: 4, max: 30},
		{name: "not a duration", attrs: `budget = "ten minutes"`, wantErr: `budget is a duration such as "10m"`},
		{name: "too short", attrs: `budget = "500ms"`, wantErr: "at least 1s"},
		{name: "fixed repeat", attrs: "budget = \"10m\"\n  repeat = 5", wantErr: "budget decides how many blocks run"},
		{name: "width rule", attrs: "budget = \"10m\"\n  repeat = { min = 3, max = 9, until = \"ci < 3%\" }", wantErr: "stops on the verdict"},
		{name: "concurrent", attrs: "budget = \"10m\"\n  concurrent = true", wantErr: "Budget with concurrent flows"},
		{name: "not random", attrs: "budget = \"10m\"\n  order = \"interleaved\"", wantErr: `order = "random"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := `lab "r" {}
template "h" {}
pair "p" { template = template.h }
pair "q" { template = template.h }
experiment "e" {
  pairs  = [pair.p, pair.q]
  ` + tc.attrs + `
  iperf3 {}
}
`
			lab, diags := LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, Options{})
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Fatalf("diags %v, want %q", diags, tc.wantErr)
				}
				if !strings.Contains(diags.Error(), "lab.hcl:") {
					t.Errorf("diagnostic names no place: %v", diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			e := lab.Experiments[0]
			if e.Budget != tc.budget || e.MinRepeat != tc.min || e.Repeat != tc.max || !e.UntilVerdict {
				t.Errorf("budget %v min %d max %d verdict %v", e.Budget, e.MinRepeat, e.Repeat, e.UntilVerdict)
			}
		})
	}
}
