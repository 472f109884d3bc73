package freebsd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/internal/golden"
)

// TestParseCounters reads the scripted outputs of ReadCounters (testdata/
// counters-*.txt, written from FreeBSD's format strings: see
// README-counters.md) into golden snapshots.
func TestParseCounters(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "counters-*.txt"))
	if len(files) < 2 {
		t.Fatal("testdata/counters-*.txt missing")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := freebsd.ParseCounters(string(b))
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.MarshalIndent(snap, "", "  ")
			golden.Check(t, f[:len(f)-len(".txt")]+".golden", string(js)+"\n")
			for _, name := range []string{guest.CounterOutSegments, guest.CounterRetransSegments, guest.CounterTimeouts, guest.CounterRecoveries} {
				if _, ok := snap.TCP[name]; !ok {
					t.Errorf("no %s in %v", name, snap.TCP)
				}
			}
		})
	}
	if _, err := freebsd.ParseCounters("#tcp\ntcp:\n"); err == nil {
		t.Error("an output without \"packets sent\" parsed")
	}
	// The command names the interface quoted and reads the vtnet parent.
	if cmd := strings.Join(freebsd.ReadCounters("vtnet0").Argv, " "); !strings.Contains(cmd, "IF='vtnet0'") && !strings.Contains(cmd, "IF=vtnet0") || !strings.Contains(cmd, "%parent") {
		t.Errorf("command %s", cmd)
	}
}
