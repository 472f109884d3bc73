package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/verdicts"
)

const publishSecretLab = `lab "pub" {}
variable "token" {
  type      = string
  sensitive = true
}
variable "secs" {
  type    = string
  default = "2s"
}
template "host" { os = "linux" }
pair "veth" { template = template.host }
experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  repeat = 2
  guest { mtu = matrix.mtu }
  iperf3 { duration = var.secs }
}
`

// fakeRun writes a complete run of the lab in dir with the given spec
// hash, through the results store, without running anything.
func fakeRun(t *testing.T, dir, hash string) string {
	t.Helper()
	run, err := results.Store{Dir: filepath.Join(dir, "results")}.NewRun(results.RunInfo{Lab: "pub", SpecHash: hash,
		Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for i, bps := range []float64{9e9, 9.2e9, 20e9, 21e9} {
		mtu := []string{"1500", "9000"}[i/2]
		rec := results.Record{Lab: "pub", Experiment: "mtu", Pair: "veth", Cell: []results.CellValue{{Name: "mtu", Value: mtu}},
			CellKey: "mtu=" + mtu, CellIndex: i / 2, Repeat: i%2 + 1, Metrics: bench.Sample{ThroughputBps: bps},
			Provenance: results.Provenance{Provider: "local"}}
		if err := run.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
	return run.ID()
}

func TestPublish(t *testing.T) {
	const secret = "s3cr3t-t0ken"
	tests := []struct {
		name    string
		spec    string
		hash    func(lab *spec.Lab) string
		wantErr string // "" for success
	}{
		{"sensitive value left out", publishSecretLab, func(l *spec.Lab) string { return l.Hash }, ""},
		{"spec changed since the run", publishSecretLab, func(*spec.Lab) string { return "other" }, "the spec changed since run"},
		{"sensitive default in the spec", strings.Replace(publishSecretLab, "sensitive = true", "sensitive = true\n  default = \""+secret+"\"", 1),
			func(l *spec.Lab) string { return l.Hash }, `sensitive variable "token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(tt.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			l, diags := spec.Load(dir, spec.Options{Vars: []string{"token=" + secret}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			runID := fakeRun(t, dir, tt.hash(l))
			out := filepath.Join(t.TempDir(), "b")
			var stdout, stderr bytes.Buffer
			code := Main([]string{"-chdir=" + dir, "publish", "-o", out, "-var", "token=" + secret, "-note", "TCG, no KVM acceleration"},
				nil, &stdout, &stderr, nil)
			if tt.wantErr != "" {
				if code != exitError || !strings.Contains(stderr.String(), tt.wantErr) {
					t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), tt.wantErr)
				}
				if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
					t.Errorf("a refused publish left %v behind", entries)
				}
				return
			}
			if code != exitOK {
				t.Fatalf("publish: exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			if err := bundle.Verify(out); err != nil {
				t.Fatal(err)
			}
			info, err := bundle.ReadInfo(out)
			if err != nil || info.RunID != runID || strings.Join(info.OmittedVariables, ",") != "token" ||
				strings.Join(info.HostNotes, ",") != "TCG, no KVM acceleration" || strings.Join(info.BackEnds, ",") != "local" {
				t.Errorf("bundle.json = %+v, %v", info, err)
			}
			vars, err := os.ReadFile(filepath.Join(out, bundle.SpecDir, bundle.VarFile))
			if err != nil || !strings.Contains(string(vars), `secs = "2s"`) || strings.Contains(string(vars), "token") {
				t.Errorf("%s:\n%s (%v)", bundle.VarFile, vars, err)
			}
			if !strings.Contains(stdout.String(), "Sensitive variables left out: token") {
				t.Errorf("publish did not say what it left out:\n%s", stdout.String())
			}
			// The same run again into the now non-empty directory.
			stderr.Reset()
			if code := Main([]string{"-chdir=" + dir, "publish", "-o", out, "-var", "token=x"}, nil, &stdout, &stderr, nil); code != exitError ||
				!strings.Contains(stderr.String(), "not empty") {
				t.Errorf("publish into a bundle: exit %d, %s", code, stderr.String())
			}
		})
	}
}

// TestReproduceResults compares runs with a bundle without applying:
// the run itself, and a run whose 1500 cell is half as fast.
func TestReproduceResults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(publishSecretLab), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags := spec.Load(dir, spec.Options{Vars: []string{"token=x"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	runID := fakeRun(t, dir, l.Hash)
	out := filepath.Join(t.TempDir(), "b")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-chdir=" + dir, "publish", "-o", out, "-var", "token=x"}, nil, &stdout, &stderr, nil); code != exitOK {
		t.Fatalf("publish: exit %d\n%s", code, stderr.String())
	}
	for _, tt := range []struct {
		args []string
		code int
		want verdicts.Reproduction
	}{
		// n = 2 on each side: the same sample is still only "inconclusive"
		// at ±10 % (Welch's interval with 1 degree of freedom is wide)…
		{[]string{"-results", runID}, exitOK, verdicts.Inconclusive},
		{[]string{"-strict", "-results", runID}, exitExpect, verdicts.Inconclusive},
		// …but reproduced at ±60 % (TOST takes min(n) − 1 = 1 degree of
		// freedom below 5 runs a side), once the shape's margin (5 % by
		// default, which two blocks cannot show) is wide too.
		{[]string{"-margin", "60%", "-results", runID}, exitOK, verdicts.Inconclusive},
		{[]string{"-margin", "60%", "-shape-margin", "40%", "-results", runID}, exitOK, verdicts.Reproduced},
		{[]string{"-results", "nope"}, exitError, ""},
	} {
		stdout.Reset()
		stderr.Reset()
		code := Main(append([]string{"-chdir=" + dir, "reproduce", "-json", "-var", "token=x"}, append(tt.args, out)...), nil, &stdout, &stderr, nil)
		var r operation.Reproduction
		_ = json.Unmarshal(stdout.Bytes(), &r)
		if code != tt.code || r.Verdict != tt.want {
			t.Errorf("reproduce %v: exit %d, verdict %q; want %d, %q\n%s%s", tt.args, code, r.Verdict, tt.code, tt.want, stdout.String(), stderr.String())
		}
	}
}

// TestPinnedBundles keeps the bundles `make reproduce` reproduces intact:
// each verifies against its manifest, its spec loads with the hash
// bundle.json states, its margin is one lab reproduce takes and its host
// notes say where the margin came from (reproducing them for real is
// `make reproduce`).
func TestPinnedBundles(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/bundles/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no pinned bundles: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if err := bundle.Verify(dir); err != nil {
				t.Fatal(err)
			}
			info, err := bundle.ReadInfo(dir)
			if err != nil {
				t.Fatal(err)
			}
			l, diags := spec.Load(filepath.Join(dir, bundle.SpecDir), spec.Options{})
			if diags.HasErrors() || l.Hash != info.SpecHash {
				t.Errorf("spec: %v, hash %s, bundle.json says %s", diags, l.Hash, info.SpecHash)
			}
			if err := operation.CheckBundleSpec(l, dir, info); err != nil {
				t.Errorf("lab reproduce would refuse it before applying: %v", err)
			}
			if _, recs, err := (results.Store{Dir: filepath.Join(dir, bundle.RecordsDir)}).Load(info.RunID); err != nil || len(recs) == 0 {
				t.Errorf("records: %d, %v", len(recs), err)
			}
			// The margin is the one lab reproduce takes from a bundle, and
			// the host notes say where it came from (docs/ci-recipe.md).
			notes := strings.Join(info.HostNotes, "\n")
			if info.Margin <= 0 || info.Margin >= 1 || !strings.Contains(notes, "load average") || !strings.Contains(notes, "margin") {
				t.Errorf("margin %g, host notes %q: want a margin in (0, 1) and notes on the load and the margin", info.Margin, info.HostNotes)
			}
			if slices.Contains(info.BackEnds, "libvirt") && (!strings.Contains(notes, "TCG") || !strings.Contains(notes, "kvm-pvm")) {
				t.Errorf("a libvirt bundle of this machine kind must say it ran under TCG, and why (kvm-pvm): %q", info.HostNotes)
			}
		})
	}
}

// TestReproductionExpects: how the spec's expect blocks weigh in the
// overall verdict. An expect block failing on the new run is not
// reproduced where it passed on the bundle's run, reproduced where it
// failed there too (a seed's shape the publishing machine did not show, as
// in firewall-jumbo's bundle) and inconclusive where the bundle's run was
// (the bundle claimed nothing); a published table reproduced counts as a
// pass and one not comparable with the post's hardware makes no claim, as
// in lab check.
func TestReproductionExpects(t *testing.T) {
	o := func(v verdicts.Verdict) verdicts.Outcome { return verdicts.Outcome{Name: "e", Verdict: v} }
	for _, tt := range []struct {
		now, bundle verdicts.Verdict
		want        verdicts.Reproduction
	}{
		{verdicts.VerdictPass, verdicts.VerdictPass, verdicts.Reproduced},
		{verdicts.VerdictReproduced, verdicts.VerdictReproduced, verdicts.Reproduced},
		{verdicts.VerdictNotComparable, verdicts.VerdictNotComparable, verdicts.Reproduced},
		{verdicts.VerdictFail, verdicts.VerdictPass, verdicts.NotReproduced},
		{verdicts.VerdictNotReproduced, verdicts.VerdictReproduced, verdicts.NotReproduced},
		{verdicts.VerdictNotReproduced, verdicts.VerdictInconclusive, verdicts.Inconclusive},
		{verdicts.VerdictFail, verdicts.VerdictInconclusive, verdicts.Inconclusive},
		{verdicts.VerdictFail, verdicts.VerdictFail, verdicts.Reproduced},
		{verdicts.VerdictNotReproduced, verdicts.VerdictNotReproduced, verdicts.Reproduced},
		{verdicts.VerdictNotReproduced, verdicts.VerdictFail, verdicts.Reproduced},
		{verdicts.VerdictInconclusive, verdicts.VerdictPass, verdicts.Inconclusive},
		{verdicts.VerdictIncomplete, verdicts.VerdictPass, verdicts.Inconclusive},
		{verdicts.VerdictPass, verdicts.VerdictFail, verdicts.Reproduced},
	} {
		r := operation.Reproduction{Expects: []verdicts.Outcome{o(tt.now)}, BundleExpects: []verdicts.Outcome{o(tt.bundle)}}
		if got := r.Overall(); got != tt.want {
			t.Errorf("expect %s now, %s on the bundle's run: %s, want %s", tt.now, tt.bundle, got, tt.want)
		}
		r.Verdict = r.Overall()
		var buf bytes.Buffer
		view.Reproduction(&buf, &r)
		if note := "(on the bundle's run: " + string(tt.bundle) + ")"; strings.Contains(buf.String(), note) != operation.FailedExpect(tt.now) {
			t.Errorf("expect %s now, %s on the bundle's run: printed\n%s", tt.now, tt.bundle, buf.String())
		}
	}
	// Matched to another block's outcome, the bundle's verdict is unknown.
	r := operation.Reproduction{Expects: []verdicts.Outcome{o(verdicts.VerdictFail)}, BundleExpects: []verdicts.Outcome{{Name: "other", Verdict: verdicts.VerdictFail}}}
	if got := r.Overall(); got != verdicts.Inconclusive {
		t.Errorf("a failure matched to another block's: %s", got)
	}
}
