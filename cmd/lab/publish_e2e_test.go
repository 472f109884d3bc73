package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// publishLab is a tiny lab for the publish/reproduce round trip: 2 cells
// × 4 repeats × 2 s. Four repeats, not two: with two, Welch's interval has
// about one degree of freedom (t ≈ 12.7), and on this loaded 2-core
// machine (CV up to 35 % between 2 s runs) not even figures altered ×3
// could be told apart from the truth; with four (t ≈ 2.8) they can.
const publishLab = `
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  repeat = 4
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "2s"
    omit     = "0s"
  }
}
`

// TestPublishReproduceForReal publishes a real run of the local back end,
// reproduces it with a second apply, then checks that a bundle whose
// figures were multiplied by 3 (and re-signed) is not reproduced and that
// an edited record without a new manifest is refused.
func TestPublishReproduceForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-publish", publishLab)
	if stdout, stderr, err := lab(t, dir, "apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	runID, err := results.Store{Dir: filepath.Join(dir, "results")}.Latest()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bundle")
	if stdout, stderr, err := lab(t, dir, "publish", "-o", out); err != nil {
		t.Fatalf("publish: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	for _, f := range []string{"spec/lab.hcl", "spec/.lab.lock.hcl", "records/" + runID + "/run.json",
		"records/" + runID + "/mtu/veth/mtu=9000/r4.json", "report.html", "plot.svg", "POST.md", "bundle.json", "MANIFEST.sha256"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("bundle lacks %s: %v", f, err)
		}
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "--quiet", "-c", bundle.ManifestFile)
		cmd.Dir = out
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, b)
		}
	}

	t.Run("reproduce", func(t *testing.T) {
		work := filepath.Join(t.TempDir(), "work")
		stdout, stderr, err := lab(t, dir, "reproduce", "-auto-approve", "-json", "-work", work, out)
		r := lastReproduction(t, stdout, stderr)
		checkExit(t, r, err, false)
		for _, c := range r.Cells {
			t.Logf("%s: %+.1f %% [%+.1f %%, %+.1f %%] %s", c.CellKey, 100*c.RelDiff, 100*c.DiffLow/c.Published.Mean, 100*c.DiffHigh/c.Published.Mean, c.Verdict)
		}
		if len(r.Cells) != 2 || len(r.Shapes) != 1 {
			t.Errorf("%d cells, %d shapes; want 2 and 1", len(r.Cells), len(r.Shapes))
		}
		for _, c := range r.Cells {
			if c.New.N != 4 || c.Published.N != 4 {
				t.Errorf("%s: n = %d published, %d new; want 4 and 4", c.CellKey, c.Published.N, c.New.N)
			}
		}
		if r.NewRun == r.PublishedRun || r.NewRunDir != work {
			t.Errorf("new run %s in %s, want a new run in %s", r.NewRun, r.NewRunDir, work)
		}
		if err := bundle.Verify(out); err != nil {
			t.Errorf("reproduce changed the bundle: %v", err)
		}
	})

	t.Run("figures ×3 are not reproduced", func(t *testing.T) {
		tripled := copyBundle(t, out)
		scaleRecords(t, filepath.Join(tripled, bundle.RecordsDir, runID), 3)
		if err := bundle.Sign(tripled); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := lab(t, dir, "reproduce", "-json", "-results", runID, tripled)
		r := lastReproduction(t, stdout, stderr)
		if r.Verdict != verdicts.NotReproduced || exitStatus(err) != exitExpect {
			t.Errorf("verdict %q, exit %d; want not reproduced, 2\n%s", r.Verdict, exitStatus(err), stdout)
		}
		// The same run against the untouched bundle: every cell is the
		// same sample, so nothing can be "not reproduced".
		stdout, stderr, err = lab(t, dir, "reproduce", "-json", "-results", runID, out)
		r = lastReproduction(t, stdout, stderr)
		checkExit(t, r, err, false)
		if r.Verdict == verdicts.NotReproduced {
			t.Errorf("a run against its own bundle: %s", stdout)
		}
	})

	t.Run("edited record is refused", func(t *testing.T) {
		edited := copyBundle(t, out)
		rec := filepath.Join("records", runID, "mtu", "veth", "mtu=1500", "r1.json")
		scaleRecords(t, filepath.Join(edited, filepath.Dir(rec)), 1.01)
		stdout, stderr, err := lab(t, dir, "reproduce", "-results", runID, edited)
		if exitStatus(err) != exitError || !strings.Contains(stderr, filepath.ToSlash(rec)) || !strings.Contains(stderr, "checksum mismatch") {
			t.Errorf("exit %d; want 1 and an error naming %s\nstdout:\n%s\nstderr:\n%s", exitStatus(err), rec, stdout, stderr)
		}
	})
}

// lastReproduction decodes reproduce -json's object: the last line of stdout.
func lastReproduction(t testing.TB, stdout, stderr string) operation.Reproduction {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var r operation.Reproduction
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil || r.Type != "reproduce" {
		t.Fatalf("no reproduce object (%v)\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return r
}

// checkExit fails unless the exit status is the one r's verdict calls for.
func checkExit(t *testing.T, r operation.Reproduction, err error, strict bool) {
	t.Helper()
	want := exitOK
	if r.Verdict == verdicts.NotReproduced || strict && r.Verdict != verdicts.Reproduced {
		want = exitExpect
	}
	if got := exitStatus(err); got != want {
		t.Errorf("verdict %q, exit %d, want %d (%v)", r.Verdict, got, want, err)
	}
}

func copyBundle(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := bundle.CopyTree(dst, src); err != nil {
		t.Fatal(err)
	}
	return dst
}

// recordName is the name of a record of a measured run (not a warm-up).
var recordName = regexp.MustCompile(`^r[0-9]+\.json$`)

// scaleRecords multiplies the receiver and sender throughput of every
// record r*.json under dir by f, keeping the rest of each record.
func scaleRecords(t testing.TB, dir string, f float64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !recordName.MatchString(d.Name()) {
			return err
		}
		var rec map[string]any
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil {
			return err
		}
		m, ok := rec["metrics"].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: no metrics", path)
		}
		for _, k := range []string{"throughput_bps", "sender_bps"} {
			if v, ok := m[k].(float64); ok {
				m[k] = v * f
			}
		}
		if data, err = json.MarshalIndent(rec, "", "  "); err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
