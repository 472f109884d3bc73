package operation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/lockfile"
)

// initView is an InitView writing a transcript.
type initView struct{ recView }

func (v *initView) Ready(lab string, locked *lockfile.Lock) {
	if locked == nil {
		v.say("lab %s ready, no lock file", lab)
		return
	}
	v.say("lab %s ready, lock file pins %d machines, %d tools", lab, len(locked.Machines), len(locked.Tools))
}
func (v *initView) Drift(msg string) { v.say("drift: %s", msg) }
func (v *initView) Wrote(runID string, next *lockfile.Lock) {
	v.say("wrote the lock file from %s: %d machines, %d tools", runID, len(next.Machines), len(next.Tools))
}

// TestInitVerb: init, one operation call, on the fake back end: a new
// lab is ready (and has its state directory), an applied one names what
// its lock file pins, -upgrade without runs is refused, -upgrade after a
// run rewrites a lock file that drifted, and a spec that does not load
// is ErrReported.
func TestInitVerb(t *testing.T) {
	for _, tc := range []struct {
		name    string
		upgrade bool
		apply   bool
		drift   bool
		broken  bool
		wantErr string
	}{
		{name: "new"},
		{name: "applied", apply: true},
		{name: "upgrade-no-runs", upgrade: true, wantErr: "run `lab apply` first"},
		{name: "upgrade", upgrade: true, apply: true, drift: true},
		{name: "broken", broken: true, wantErr: ErrReported.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fakeLab("init-"+tc.name, "")
			if tc.broken {
				src += "pair \"q\" { template = template.none }\n"
			}
			o := newFakeOp(t, src)
			if tc.apply {
				if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil && !errors.Is(err, ErrExpectFailed) {
					t.Fatal(err)
				}
			}
			if tc.drift {
				locked, _, err := lockfile.Read(o.Dir)
				if err != nil || locked == nil {
					t.Fatalf("lock file after apply: %v, %v", locked, err)
				}
				for name := range locked.Tools {
					locked.Tools[name] = "0.0-old"
				}
				if _, err := lockfile.Write(o.Dir, locked); err != nil {
					t.Fatal(err)
				}
			}
			v := &initView{}
			err := o.Init(InitArgs{Upgrade: tc.upgrade}, v)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Init = %v, want an error with %q", err, tc.wantErr)
			}
			if _, statErr := os.Stat(o.StateDir()); (statErr == nil) != !tc.broken {
				t.Errorf("state directory: %v", statErr)
			}
			if tc.upgrade && err == nil {
				if _, err := os.Stat(filepath.Join(o.Dir, lockfile.FileName)); err != nil {
					t.Errorf("lock file: %v", err)
				}
			}
			golden.Check(t, filepath.Join("testdata", "initverb", tc.name+".golden"), v.transcript(o.Dir))
		})
	}
}
