package operation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// checkView is a CheckView and a ValidateView writing a transcript.
type checkView struct{ recView }

func (v *checkView) NoExpectations(lab string) { v.say("no expectations in %s", lab) }
func (v *checkView) Diagnostics(_ *spec.Lab, diags hcl.Diagnostics) error {
	for _, d := range diags {
		v.say("diagnostic: %s", d.Summary)
	}
	return nil
}
func (v *checkView) Valid(lab *spec.Lab, cells int, unknown []string) {
	v.say("valid: %s, %d cells, unknown %q", lab.Name, cells, unknown)
}

// TestCheckVerb: check, one operation call, judges a run applied
// in-process on the fake back end: a pass, a fail (ErrExpectFailed), a
// lab without expect blocks, two runs pooled, a JUnit file written.
func TestCheckVerb(t *testing.T) {
	pass := `expect "jumbo changes nothing" {
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [0.9, 1.1] }
  }`
	fail := `expect "jumbo doubles it" {
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [1.9, 2.1] }
  }`
	for _, tc := range []struct {
		name, expect string
		args         CheckArgs
		applies      int
		wantErr      error
	}{
		{name: "pass", expect: pass, applies: 1},
		{name: "fail", expect: fail, applies: 1, wantErr: ErrExpectFailed},
		{name: "none", applies: 1},
		{name: "pooled", expect: pass, applies: 2, args: CheckArgs{Runs: []string{results.AliasLatest, results.AliasPrevious}}},
		{name: "junit", expect: pass, applies: 1, args: CheckArgs{JUnit: "checks.xml", Strict: true}},
		{name: "no-runs", expect: pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newFakeOp(t, fakeLab("check-"+tc.name, tc.expect))
			for range tc.applies {
				if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil && !errors.Is(err, ErrExpectFailed) {
					t.Fatal(err)
				}
			}
			if tc.args.JUnit != "" {
				tc.args.JUnit = filepath.Join(o.Dir, tc.args.JUnit)
			}
			v := &checkView{}
			err := o.Check(tc.args, v)
			if tc.name == "no-runs" {
				if err == nil || !strings.Contains(err.Error(), "run `lab apply` first") {
					t.Errorf("Check without runs = %v", err)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Errorf("Check = %v, want %v", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "checkverb", tc.name+".golden"), v.transcript(o.Dir))
			if tc.args.JUnit != "" {
				if b, err := os.ReadFile(tc.args.JUnit); err != nil || !strings.Contains(string(b), "jumbo changes nothing") {
					t.Errorf("JUnit file: %v\n%s", err, b)
				}
			}
		})
	}
}

// TestValidateVerb: validate, one operation call, says a lab on the fake
// back end is valid (a variable without a value taken as unknown) and
// shows the diagnostics of one that is not (ErrReported).
func TestValidateVerb(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		wantErr     error
	}{
		{name: "valid", extra: "variable \"region\" {\n  type = string\n}\n"},
		{name: "invalid", extra: "pair \"q\" { template = template.none }\n", wantErr: ErrReported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newFakeOp(t, fakeLab("validate-"+tc.name, "")+tc.extra)
			v := &checkView{}
			if err := o.Validate(Vars{}, v); !errors.Is(err, tc.wantErr) {
				t.Errorf("Validate = %v, want %v", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "validateverb", tc.name+".golden"), v.transcript(o.Dir))
		})
	}
}
