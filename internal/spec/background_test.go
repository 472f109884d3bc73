package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// TestBackground: a background load without a duration lasts each cell's
// measurement + BackgroundLead; one with a duration must cover the
// measurement, or the cell is refused at the duration's line.
func TestBackground(t *testing.T) {
	const src = `
lab "l" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { d = ["2s", "10s"] }
  background {
    iperf3 {
      parallel = 4
      reverse  = true
      DURATION
    }
  }
  iperf2 {
    bounceback = true
    duration   = matrix.d
  }
}
`
	tests := []struct {
		name     string
		duration string
		want     map[string]time.Duration // load duration per cell
		err      string                   // for cell d = 10s
	}{
		{"fitted", "", map[string]time.Duration{"2s": 5 * time.Second, "10s": 13 * time.Second}, ""},
		{"long enough", `duration = "20s"`, map[string]time.Duration{"2s": 20 * time.Second, "10s": 20 * time.Second}, ""},
		{"too short", `duration = "5s"`, map[string]time.Duration{"2s": 5 * time.Second}, "Background load ends before the measurement"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lab, diags := LoadFiles("", map[string][]byte{"lab.hcl": []byte(strings.Replace(src, "DURATION", tc.duration, 1))}, Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			e := lab.Experiments[0]
			for _, d := range []string{"2s", "10s"} {
				cs, diags := e.Eval(map[string]cty.Value{"d": cty.StringVal(d)})
				if d == "10s" && tc.err != "" {
					if !diags.HasErrors() || diags[0].Summary != tc.err || diags[0].Subject.Start.Line != 12 {
						t.Errorf("cell %s: %v, want %q at line 12", d, diags, tc.err)
					}
					continue
				}
				if diags.HasErrors() {
					t.Fatalf("cell %s: %v", d, diags)
				}
				bg := cs.Background
				if bg == nil || bg.Tool != "iperf3" || bg.Parallel != 4 || !bg.Reverse || bg.Duration != tc.want[d] {
					t.Errorf("cell %s: background %+v, want iperf3 -P 4 -R for %v", d, bg, tc.want[d])
				}
			}
		})
	}
}
