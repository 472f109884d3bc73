package plan

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
)

// duetLab is a quickstart-like duet: two equal veth pairs, the cells MTU
// 1500 and 9000 at once, the pairs swapped every second repeat.
const duetLab = `
lab "duet" {}
template "t" {}
pair "a" { template = template.t }
pair "b" { template = template.t }
experiment "e" {
  pairs  = [pair.a, pair.b]
  design = "duet"
  matrix = { mtu = [1500, 9000] }
  repeat = 4
  warmup = 1
  guest { mtu = matrix.mtu }
  iperf3 { duration = "2s" }
}
`

// TestDuetOrder: every repeat (and warm-up) of a duet is one batch of two
// flows, one per pair, one per cell, each configured with its own cell's
// settings; odd repeats put mtu 1500 on pair a, even ones on pair b; the
// plan records the design, and the estimate counts a batch once.
func TestDuetOrder(t *testing.T) {
	p, diags := New(load(t, duetLab), &state.State{}, Options{OrderSeed: 7})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d := p.Design["e"]; d != results.DesignDuet {
		t.Errorf("design %q, want %q", d, results.DesignDuet)
	}
	batches := Batches(p.Runs())
	if len(batches) != 1+4 {
		t.Fatalf("%d batches, want 5 (1 warm-up + 4 repeats)", len(batches))
	}
	var got []string
	for _, b := range batches {
		if len(b) != 2 {
			t.Fatalf("batch of %d runs, want 2: %+v", len(b), b)
		}
		for _, r := range b {
			if !slices.Equal(r.Flows, []string{"a", "b"}) || !r.Duet {
				t.Errorf("run %d: flows %v duet %v", r.Index, r.Flows, r.Duet)
			}
			if r.Repeat != b[0].Repeat || r.Warmup != b[0].Warmup {
				t.Errorf("batch mixes repeats %d and %d", b[0].Repeat, r.Repeat)
			}
			if mtu := r.Spec.Server.MTU; fmt.Sprint(mtu) != r.Cell[0].Value {
				t.Errorf("run %d of cell %s configures mtu %v", r.Index, r.CellKey, mtu)
			}
		}
		got = append(got, fmt.Sprintf("%s:%s %s:%s", b[0].Pair, b[0].Cell[0].Value, b[1].Pair, b[1].Cell[0].Value))
	}
	want := []string{"a:1500 b:9000", "a:1500 b:9000", "a:9000 b:1500", "a:1500 b:9000", "a:9000 b:1500"}
	if !slices.Equal(got, want) {
		t.Errorf("batches %v, want %v (warm-up, then swapped every second repeat)", got, want)
	}
	var out bytes.Buffer
	if err := p.Render(&out, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "(duet e: both cells of a repeat at once") || strings.Contains(out.String(), "random blocks") || p.OrderSeed != 0 {
		t.Errorf("plan says (seed %d):\n%s", p.OrderSeed, out.String())
	}
	add, replace, del, _ := p.Counts()
	create := time.Duration(add+2*replace+del) * time.Second / 2
	if want := create + time.Duration(len(batches))*(2*time.Second+time.Second); p.Estimate != want {
		t.Errorf("estimate %v, want %v (each batch once)", p.Estimate, want)
	}
}
