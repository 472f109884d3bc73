package spec

import (
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// TestGuard: an expression that runs past the limit is reported at its
// file, line and column; quick ones are not.
func TestGuard(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	got := make(chan *hcl.Diagnostic, 1)
	go Guard(stop, GuardLimits{Time: 50 * time.Millisecond, Interval: 5 * time.Millisecond}, func(d *hcl.Diagnostic) { got <- d })

	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(smallLab)}, Options{})
	wantNoError(t, l, diags)
	select {
	case d := <-got:
		t.Fatalf("a small lab tripped the guard: %v", d)
	default:
	}

	// About 150 000 strings: half a second or more, well past 50 ms.
	slow := smallLab + "variable \"v\" {\n  default = [for a in range(150) : [for b in range(1000) : \"${a}-${b}\"]]\n}\n"
	LoadFiles("", map[string][]byte{"main.hcl": []byte(slow)}, Options{})
	select {
	case d := <-got:
		if d.Summary != "Expression too costly" || d.Detail != "Evaluating this expression took more than 50ms, the limit; lab stopped. Build smaller values: fewer or shorter elements, fewer nested for expressions." {
			t.Errorf("got %q: %q", d.Summary, d.Detail)
		}
		if d.Subject == nil || d.Subject.Filename != "main.hcl" || d.Subject.Start.Line != 9 || d.Subject.Start.Column != 13 {
			t.Errorf("subject %v, want main.hcl:9:13", d.Subject)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the guard did not report a slow expression")
	}
}

// TestWatch: evaluation outside spec (a provider's block) is watched too.
func TestWatch(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	got := make(chan *hcl.Diagnostic, 1)
	go Guard(stop, GuardLimits{Time: 20 * time.Millisecond, Interval: 5 * time.Millisecond}, func(d *hcl.Diagnostic) { got <- d })
	rng := hcl.Range{Filename: "main.hcl", Start: hcl.Pos{Line: 3, Column: 1}, End: hcl.Pos{Line: 3, Column: 20}}
	done := Watch(rng)
	select {
	case d := <-got:
		if d.Subject == nil || *d.Subject != rng {
			t.Errorf("subject %v, want %v", d.Subject, rng)
		}
	case <-time.After(5 * time.Second):
		t.Error("a watched evaluation past the limit was not reported")
	}
	done()
	if current.Load() != nil {
		t.Error("Watch did not restore")
	}
}
