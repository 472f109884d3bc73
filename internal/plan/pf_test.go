package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
)

// pfRoutedLab is seed 001's client → pf firewall → server with FreeBSD
// machines, the router's firewall a pf preset per cell.
const pfRoutedLab = `
lab "pf" {}
template "bsd" {
  os     = "freebsd"
  source = "img"
  ssh {
    user             = "root"
    private_key_file = "~/.ssh/k"
  }
}
pair "fw" {
  template = template.bsd
  via      = template.bsd
}
experiment "e" {
  pairs  = [pair.fw]
  matrix = { pf = ["skip", "no-state", "keep-state"] }
  router { firewall = matrix.pf }
  iperf3 { duration = "2s" }
}
`

// TestPlanShowsPFFirewall: every run of the plan carries its cell's pf
// preset in the router's settings, as plan -json shows them.
func TestPlanShowsPFFirewall(t *testing.T) {
	p, diags := New(load(t, pfRoutedLab), &state.State{Lineage: "l"}, Options{Now: time.Unix(0, 0)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]bool{}
	for _, r := range p.Runs() {
		if !strings.Contains(r.CellKey, "pf="+r.Spec.Router.Firewall) {
			t.Errorf("run %d (%s): router firewall %q", r.Index, r.CellKey, r.Spec.Router.Firewall)
		}
		got[r.Spec.Router.Firewall] = true
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"router":{"firewall":"`+r.Spec.Router.Firewall+`"`) {
			t.Errorf("run %d's JSON lacks the router's firewall: %s", r.Index, b)
		}
	}
	if len(got) != 3 {
		t.Errorf("presets planned: %v", got)
	}
}
