package operation

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

func (v *recView) Signed(who, file string) { v.say("signed by %s (%s)", who, file) }
func (v *recView) Reproducing(runID, lab, bundle, work string) {
	v.say("reproducing run %s of lab %s from %s", runID, lab, filepath.Base(bundle))
}
func (v *recView) Notes() io.Writer { return noteWriter{v} }
func (v *recView) Reproduction(r *Reproduction) error {
	v.say("verdict: %s (%d cells, metric %s, margin %.2f, shape margin %.2f)", r.Verdict, len(r.Cells), r.Metric, r.Margin, r.ShapeMargin)
	return nil
}

// noteWriter takes the notes on the bundle's spec as transcript lines.
type noteWriter struct{ v *recView }

func (n noteWriter) Write(b []byte) (int, error) {
	n.v.say("note: %s", strings.TrimSpace(string(b)))
	return len(b), nil
}

// publishedBundle applies fakeLab on the fake back end and publishes the
// run through Publish; it returns the operation and the bundle's
// directory.
func publishedBundle(t *testing.T, labID string) (*Operation, string) {
	t.Helper()
	o := newFakeOp(t, fakeLab(labID, `expect "jumbo changes nothing" {
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [0.9, 1.1] }
  }`))
	if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bundle")
	v := &pubView{}
	if err := o.Publish(PublishArgs{PublishOptions: PublishOptions{Out: out, Margin: 0.1, ShapeMargin: 0.05, Notes: []string{"a test"}}}, v); err != nil {
		t.Fatal(err)
	}
	if v.records != 6 || v.out != out || v.lab != labID {
		t.Errorf("Published(%d records, %s, %s), want 6 records of %s in %s", v.records, v.out, v.lab, labID, out)
	}
	return o, out
}

// pubView remembers what Publish said.
type pubView struct {
	lab, out string
	records  int
}

func (v *pubView) Published(_ results.RunInfo, lab string, records int, out string, _ bundle.Info) {
	v.lab, v.out, v.records = lab, out, records
}

// TestReproduceVerb: a run published from the fake back end is reproduced
// in-process — by a new apply in a work directory, or from an existing run
// (-results) — and judged reproduced; a tampered bundle is refused before
// anything runs; -margin on the command line wins over the bundle's.
func TestReproduceVerb(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    func(a *ReproduceArgs, o *Operation, bundleDir string)
		wantErr string
	}{
		{name: "apply"},
		{name: "results", args: func(a *ReproduceArgs, _ *Operation, _ string) { a.Results = results.AliasLatest }},
		{name: "margin", args: func(a *ReproduceArgs, _ *Operation, _ string) { a.Margin, a.MarginSet = 0.2, true }},
		{name: "tampered", args: func(_ *ReproduceArgs, _ *Operation, dir string) {
			if err := os.WriteFile(filepath.Join(dir, bundle.InfoFile), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "refusing the bundle"},
		{name: "unsigned", args: func(a *ReproduceArgs, o *Operation, _ string) {
			a.AllowedSigners = filepath.Join(o.Dir, "allowed_signers")
			if err := os.WriteFile(a.AllowedSigners, []byte("someone@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHHgB9ZYVu7XT+3ItGqEO5qG8YTwcqBYNyNyRo4hZnfq\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "refusing the bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, dir := publishedBundle(t, "repro-"+tc.name)
			a := ReproduceArgs{Bundle: dir, Metric: results.MetricThroughput, Margin: 0.3, ShapeMargin: 0.05, Apply: fakeArgs(), // the bundle's 0.1 wins
				Work: filepath.Join(t.TempDir(), "work")}
			a.Apply.AutoApprove = true
			if tc.args != nil {
				tc.args(&a, o, dir)
			}
			if a.Results != "" {
				a.Work = ""
			}
			v := &recView{}
			err := o.Reproduce(context.Background(), a, v)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Reproduce = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Reproduce = %v", err)
			}
			golden.Check(t, filepath.Join("testdata", "reproduceverb", tc.name+".golden"), v.transcript(o.Dir))
		})
	}
}

// TestReproduceVerbStrict: a verdict short of reproduced fails with
// -strict only; a bundle whose expectation fails here is not reproduced
// whatever -strict says (ErrExpectFailed, exit 2).
func TestReproduceVerbStrict(t *testing.T) {
	o, dir := publishedBundle(t, "repro-strict")
	for _, strict := range []bool{false, true} {
		a := ReproduceArgs{Bundle: dir, Metric: results.MetricThroughput, Margin: 0.1, ShapeMargin: 0.05, Results: results.AliasLatest, Strict: strict}
		v := &recView{}
		err := o.Reproduce(context.Background(), a, v)
		verdict := v.lines[len(v.lines)-1]
		settled := strings.Contains(verdict, "verdict: "+string(verdicts.Reproduced))
		if wantFail := strict && !settled; errors.Is(err, ErrExpectFailed) != wantFail || err != nil && !errors.Is(err, ErrExpectFailed) {
			t.Errorf("strict %v, %s: Reproduce = %v", strict, verdict, err)
		}
	}
}
