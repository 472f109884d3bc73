package operation

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/state"
)

// stateView is a StateView writing a transcript.
type stateView struct{ recView }

// List writes the objects sorted by address: the fake back end creates a
// pair's two machines at once, so the state lists them in the order they
// finished (CI saw server before client), which the golden must not pin.
func (v *stateView) List(rs []state.Resource) error {
	v.say("list: %d objects", len(rs))
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b state.Resource) int { return strings.Compare(a.Address, b.Address) })
	for _, r := range rs {
		v.say("  %s %s %s", r.Address, r.Kind, r.Status)
	}
	return nil
}
func (v *stateView) Show(r *state.Resource) error {
	v.say("show %s: %s %s on %s", r.Address, r.Kind, r.Status, r.ProviderKey)
	return nil
}
func (v *stateView) Removed(addrs []string) { v.say("removed %s", strings.Join(addrs, ", ")) }

// TestStateVerb: state list, show and rm, one operation call each, on
// what an apply -keep left on the fake back end, step after step: rm of
// an address the state does not list removes nothing (not even the
// listed one named beside it), rm of a listed one leaves the others.
func TestStateVerb(t *testing.T) {
	o := newFakeOp(t, fakeLab("state", ""))
	a := fakeArgs()
	a.Keep = true
	if err := o.Apply(context.Background(), a, &recView{}); err != nil {
		t.Fatal(err)
	}
	kept, err := o.StateStore().Load()
	if err != nil || len(kept.Resources) == 0 {
		t.Fatalf("state after apply -keep: %v, %v", kept, err)
	}
	first := kept.Resources[0].Address
	t.Cleanup(func() {
		if err := o.StateStore().Save(kept); err != nil { // what rm forgot, so that destroy removes it
			t.Error(err)
		}
		destroyAll(t, o, kept)
	})
	for _, tc := range []struct {
		name    string
		do      func(v StateView) error
		wantErr string
	}{
		{name: "list", do: o.StateList},
		{name: "show", do: func(v StateView) error { return o.StateShow(first, v) }},
		{name: "show-missing", do: func(v StateView) error { return o.StateShow("pair.none", v) }, wantErr: "the state lists no pair.none (it lists: "},
		{name: "rm-missing", do: func(v StateView) error { return o.StateRm([]string{first, "pair.none"}, v) }, wantErr: "the state lists no pair.none"},
		{name: "list-after-rm-missing", do: o.StateList},
		{name: "rm", do: func(v StateView) error { return o.StateRm([]string{first}, v) }},
		{name: "list-after-rm", do: o.StateList},
		{name: "show-removed", do: func(v StateView) error { return o.StateShow(first, v) }, wantErr: "the state lists no " + first},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &stateView{}
			err := tc.do(v)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("= %v, want an error with %q", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "stateverb", tc.name+".golden"), v.transcript(o.Dir))
		})
	}
}

// TestStateVerbEmpty: a lab never applied lists no objects, and has
// none to show.
func TestStateVerbEmpty(t *testing.T) {
	o := newFakeOp(t, fakeLab("state-empty", ""))
	v := &stateView{}
	if err := o.StateList(v); err != nil {
		t.Fatal(err)
	}
	if err := o.StateShow("pair.p", v); err == nil || !strings.Contains(err.Error(), "it lists no objects at all") {
		t.Errorf("StateShow on an empty state = %v", err)
	}
	if got := v.transcript(o.Dir); got != "list: 0 objects\n" {
		t.Errorf("transcript %q", got)
	}
}
