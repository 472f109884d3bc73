package lockfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

func rec(kernel, tool string) results.Record {
	return results.Record{
		Intent: results.Intent{Bench: bench.Params{Tool: "iperf3"}},
		Provenance: results.Provenance{
			ServerMachine: "pair.veth.server", ClientMachine: "pair.veth.client",
			ServerKernel: kernel, ClientKernel: kernel, ServerDriver: "veth", ClientDriver: "veth",
			ServerTemplateID: "uuid-4223", ToolVersion: tool,
		},
	}
}

func TestRenderGoldenAndRoundTrip(t *testing.T) {
	l := FromRecords([]results.Record{rec("6.1.0-28-amd64", "iperf 3.12"), rec("", "")})
	got := l.Render()
	golden.Check(t, filepath.Join("testdata", "lock.golden"), got)
	dir := t.TempDir()
	digest, err := Write(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	back, d2, err := Read(dir)
	if err != nil || d2 != digest {
		t.Fatalf("read back: %v (digest %s vs %s)", err, d2, digest)
	}
	if drift := back.Drift(l); len(drift) != 0 {
		t.Errorf("round trip drifted: %v", drift)
	}
}

func TestDrift(t *testing.T) {
	locked := FromRecords([]results.Record{rec("6.1.0-28-amd64", "iperf 3.12")})
	tests := []struct {
		name string
		obs  results.Record
		want []string
	}{
		{"same", rec("6.1.0-28-amd64", "iperf 3.12"), nil},
		{"new kernel", rec("6.1.0-30-amd64", "iperf 3.12"), []string{"pair.veth.client kernel", "pair.veth.server kernel"}},
		{"new tool", rec("6.1.0-28-amd64", "iperf 3.16"), []string{"iperf3 version"}},
		{"nothing observed is no drift", rec("", ""), nil},
	}
	for _, tc := range tests {
		got := locked.Drift(FromRecords([]results.Record{tc.obs}))
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %d messages", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: %q, want prefix %q", tc.name, got[i], w)
			}
		}
	}
}

func TestReadMissingAndBroken(t *testing.T) {
	dir := t.TempDir()
	if l, d, err := Read(dir); l != nil || d != "" || err != nil {
		t.Errorf("missing: %v %q %v", l, d, err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte("machine {"), 0o644)
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Errorf("broken lock file: %v", err)
	}
}
