package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runsAtOnceLab is two pairs of borrowed machines, one per hosts block.
const runsAtOnceLab = `
lab "e2e-runs-at-once" {}
%s
pair "pa" { template = template.a }
pair "pb" { template = template.b }
experiment "mtu" {
  pairs  = [pair.pa, pair.pb]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "3s"
    omit     = "0s"
  }
}
`

const hostsBlock = `
provider "hosts" %q {
  server {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
  }
  client {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
  }
}
template %q {
  provider = provider.hosts.%s
  os       = "linux"
}
`

// TestRunsAtOnceForReal applies two pairs of borrowed machines (real
// sshd, real iperf3), four machines with four host keys, with
// -runs-at-once 2: every run is recorded with both its machines' host key
// fingerprints and the segment between them as its footprint, no run
// overlapped one of its own pair, two records list each other or neither,
// and they do when their measured windows (raw start to end) intersect.
// (One may list the other when only the other's server start, which its
// Raw.Start follows, met its window: the pair is decided when the first
// of the two is recorded, while the other may still be measuring.)
func TestRunsAtOnceForReal(t *testing.T) {
	a := newBareMetal(t)
	b := newBareMetalAt(t, 4) // on a subnet of its own
	var blocks strings.Builder
	for name, m := range map[string]bareMetal{"a": a, "b": b} {
		fmt.Fprintf(&blocks, hostsBlock, name, m.server.addr, m.server.keyFile, m.client.addr, m.client.keyFile, name, name)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(fmt.Sprintf(runsAtOnceLab, blocks.String())), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-runs-at-once", "2")
	if err != nil {
		t.Fatalf("apply: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	listed := map[[2]string]bool{} // (run, run it lists)
	name := func(pair, cell string) string { return pair + " " + cell }
	for _, r := range recs {
		fp := strings.Join(r.Provenance.Footprint, ", ")
		if r.Error != "" || strings.Count(fp, "ssh host SHA256:") != 4 || !strings.Contains(fp, "segment ") {
			t.Errorf("%s %s: error %q, footprint %q (want both machines' keys and the segment)", r.Pair, r.CellKey, r.Error, fp)
		}
		for _, o := range r.Provenance.Overlapped {
			if o.Pair == r.Pair {
				t.Errorf("%s %s overlapped %s %s of its own pair", r.Pair, r.CellKey, o.Pair, o.CellKey)
			}
			listed[[2]string{name(r.Pair, r.CellKey), name(o.Pair, o.CellKey)}] = true
		}
		t.Logf("%s %s: %.1f Gb/s, measured %s to %s, footprint %s, overlapped %+v", r.Pair, r.CellKey, r.Metrics.ThroughputBps/1e9,
			r.Raw.Start.Format("15:04:05.000"), r.Raw.End.Format("15:04:05.000"), fp, r.Provenance.Overlapped)
	}
	for _, a := range recs {
		for _, b := range recs {
			if a.Pair == b.Pair {
				continue
			}
			met := a.Raw.Start.Before(b.Raw.End) && b.Raw.Start.Before(a.Raw.End)
			ab := listed[[2]string{name(a.Pair, a.CellKey), name(b.Pair, b.CellKey)}]
			ba := listed[[2]string{name(b.Pair, b.CellKey), name(a.Pair, a.CellKey)}]
			if ab != ba || met && !ab {
				t.Errorf("%s %s lists %s %s as overlapped: %v, and the other way: %v; their measured windows intersect: %v",
					a.Pair, a.CellKey, b.Pair, b.CellKey, ab, ba, met)
			}
		}
	}
}
