package providers

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/lab-bench/lab/machine"
)

// footprinted is a back end with Footprint only; teamFootprinted names
// its machines for a team too. Their other methods are never called.
type footprinted struct{ Provider }

func (footprinted) Footprint(context.Context, machine.Instance) (Footprint, error) {
	return FootprintOf("host h0"), nil
}

type teamFootprinted struct{ footprinted }

func (teamFootprinted) TeamFootprint(context.Context, machine.Instance) (Footprint, error) {
	return FootprintOf("libvirt host kvm1"), nil
}

// TestTracedFootprint: LAB_LOG's traced provider answers Footprint and
// TeamFootprint as the back end it wraps (TeamFootprint falling back to
// Footprint; neither: everything), so logging changes neither which runs
// overlap nor what the team's lock locks.
func TestTracedFootprint(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name      string
		p         Provider
		fp, teamF string
	}{
		{"Footprint only", footprinted{}, "host h0", "host h0"},
		{"TeamFootprint too", teamFootprinted{}, "host h0", "libvirt host kvm1"},
		{"neither", struct{ Provider }{}, "everything", "everything"},
	}
	for _, tc := range tests {
		tr := Traced("x.y", tc.p, log)
		f, ok := tr.(interface {
			Footprint(context.Context, machine.Instance) (Footprint, error)
			TeamFootprint(context.Context, machine.Instance) (Footprint, error)
		})
		if !ok {
			t.Fatalf("%s: the traced provider has no Footprint or TeamFootprint", tc.name)
		}
		fp, err := f.Footprint(context.Background(), machine.Instance{})
		team, err2 := f.TeamFootprint(context.Background(), machine.Instance{})
		if err != nil || err2 != nil || fp.String() != tc.fp || team.String() != tc.teamF {
			t.Errorf("%s: footprint %q (%v), team %q (%v); want %q, %q", tc.name, fp, err, team, err2, tc.fp, tc.teamF)
		}
	}
}
