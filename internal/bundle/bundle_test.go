package bundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

// sample writes a small signed bundle and returns its directory.
func sample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"spec/lab.hcl":                         "lab \"x\" {}\n",
		"records/R1/run.json":                  "{}\n",
		"records/R1/e/p/mtu=1500/r1.json":      `{"metrics": {"throughput_bps": 1e9}}` + "\n",
		"records/R1/e/p/mtu=1500/r2.json":      `{"metrics": {"throughput_bps": 2e9}}` + "\n",
		"POST.md":                              "# post\n",
		"name with spaces/and ünïcode.txt":     "odd names survive\n",
		"records/R1/e/p/mtu=9000~abc/w1.json":  "{}\n",
		"report.html":                          "<html></html>\n",
		"spec/.lab.lock.hcl":                   "# lock\n",
		"spec/published.labvars":               "a = 1\n",
		"records/R1/e/p/mtu=9000~abc/r1.json":  "{}\n",
		"records/R1/e/p/mtu=9000~abc/r10.json": "{}\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteInfo(dir, Info{Format: Format, Lab: "x", RunID: "R1", Margin: 0.1}); err != nil {
		t.Fatal(err)
	}
	if err := Sign(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestVerify(t *testing.T) {
	rec := "records/R1/e/p/mtu=1500/r1.json"
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		path   string // the file the error must name; "" for no error
		why    string
	}{
		{"untouched", func(*testing.T, string) {}, "", ""},
		{"edited record", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, rec), `{"metrics": {"throughput_bps": 3e9}}`+"\n")
		}, rec, "checksum mismatch"},
		{"extra file", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "records/R1/e/p/mtu=1500/r3.json"), "{}\n")
		}, "records/R1/e/p/mtu=1500/r3.json", "not in the manifest"},
		{"missing file", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, rec)); err != nil {
				t.Fatal(err)
			}
		}, rec, "missing"},
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}, "link", "not a regular file"},
		{"re-signed after an edit", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, rec), "{}\n")
			if err := Sign(dir); err != nil {
				t.Fatal(err)
			}
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sample(t)
			tt.tamper(t, dir)
			err := Verify(dir)
			if tt.path == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			var te *TamperedError
			if !errors.As(err, &te) {
				t.Fatalf("Verify = %v, want a TamperedError", err)
			}
			if te.Path != tt.path || te.Why != tt.why {
				t.Errorf("Verify names %q (%s), want %q (%s)", te.Path, te.Why, tt.path, tt.why)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}

func TestVerifyBadManifest(t *testing.T) {
	for name, manifest := range map[string]string{
		"no separator":   "abc\n",
		"short sum":      "abc  POST.md\n",
		"escapes":        strings.Repeat("a", 64) + "  ../etc/passwd\n",
		"absolute":       strings.Repeat("a", 64) + "  /etc/passwd\n",
		"listed twice":   strings.Repeat("a", 64) + "  POST.md\n" + strings.Repeat("a", 64) + "  POST.md\n",
		"upper-case hex": strings.Repeat("A", 64) + "  POST.md\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := sample(t)
			write(t, filepath.Join(dir, ManifestFile), manifest)
			err := Verify(dir)
			if err == nil || !strings.Contains(err.Error(), ManifestFile) {
				t.Errorf("Verify = %v, want an error naming %s", err, ManifestFile)
			}
		})
	}
	dir := sample(t)
	if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir); err == nil {
		t.Error("Verify accepted a bundle without a manifest")
	}
}

// TestManifestFormat checks the manifest is what sha256sum -c reads:
// "<64 hex>  <path>", sorted, the manifest itself left out.
func TestManifestFormat(t *testing.T) {
	dir := sample(t)
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 13 {
		t.Fatalf("%d lines, want 13 (12 files and bundle.json):\n%s", len(lines), data)
	}
	prev := ""
	for _, l := range lines {
		sum, rel, ok := strings.Cut(l, "  ")
		if !ok || len(sum) != 64 || rel <= prev || rel == ManifestFile {
			t.Errorf("line %q", l)
		}
		prev = rel
	}
}

func TestReadInfo(t *testing.T) {
	dir := sample(t)
	info, err := ReadInfo(dir)
	if err != nil || info.RunID != "R1" || info.Margin != 0.1 {
		t.Fatalf("ReadInfo = %+v, %v", info, err)
	}
	for name, body := range map[string]string{
		"future format": `{"format": 2, "run_id": "R1"}`,
		"bad run id":    `{"format": 1, "run_id": "../R1"}`,
		"not JSON":      `{`,
	} {
		write(t, filepath.Join(dir, InfoFile), body)
		if _, err := ReadInfo(dir); err == nil {
			t.Errorf("%s: ReadInfo accepted %s", name, body)
		}
	}
}

// TestReadInfoRefusesHostileFields: bundle.json is untrusted input (issue
// 31 §1). var_file is joined to spec/ and read as a variables file, so
// anything but the plain name of a file of spec/ is refused; a run id or
// lab name carrying control bytes (ESC) would reach the terminal raw.
func TestReadInfoRefusesHostileFields(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Info)
		want string // in the error; "" for none
	}{
		{"the published variables file", func(i *Info) { i.VarFile = VarFile }, ""},
		{"no variables file", func(i *Info) { i.VarFile = "" }, ""},
		{"traversal", func(i *Info) { i.VarFile = "../../../../etc/shadow" }, "var_file"},
		{"absolute", func(i *Info) { i.VarFile = "/etc/shadow" }, "var_file"},
		{"into a subdirectory", func(i *Info) { i.VarFile = ".lab/state.json" }, "var_file"},
		{"dot", func(i *Info) { i.VarFile = "." }, "var_file"},
		{"dot dot", func(i *Info) { i.VarFile = ".." }, "var_file"},
		{"hidden file", func(i *Info) { i.VarFile = ".lab.lock.hcl" }, "var_file"},
		{"backslash", func(i *Info) { i.VarFile = `..\x` }, "var_file"},
		{"not in the bundle", func(i *Info) { i.VarFile = "other.labvars" }, "var_file"},
		{"a spec file", func(i *Info) { i.VarFile = "lab.hcl" }, "var_file"},
		{"ESC in the run id", func(i *Info) { i.RunID = "R1\x1b[2J" }, "run id"},
		{"newline in the run id", func(i *Info) { i.RunID = "R1\nok" }, "run id"},
		{"hidden run id", func(i *Info) { i.RunID = ".R1" }, "run id"},
		{"ESC in the lab name", func(i *Info) { i.Lab = "x\x1b]0;owned\x07" }, "lab name"},
		{"DEL in the lab name", func(i *Info) { i.Lab = "x\x7f" }, "lab name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sample(t)
			info := Info{Format: Format, Lab: "x", RunID: "R1", Margin: 0.1, VarFile: VarFile}
			tt.edit(&info)
			if err := WriteInfo(dir, info); err != nil {
				t.Fatal(err)
			}
			_, err := ReadInfo(dir)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("ReadInfo: %v", err)
			case tt.want == "":
				return
			case err == nil:
				t.Fatalf("ReadInfo accepted %+v", info)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("ReadInfo = %v, want an error about the %s", err, tt.want)
			case strings.ContainsAny(err.Error(), "\x1b\x07\x7f\n"):
				t.Errorf("the error carries the control bytes raw: %q", err)
			}
		})
	}
}

func TestCopyTreeRefusesSymlinks(t *testing.T) {
	src := t.TempDir()
	write(t, filepath.Join(src, "a/b.json"), "{}")
	if err := CopyTree(t.TempDir(), src); err != nil {
		t.Fatalf("CopyTree: %v", err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "a/link")); err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(t.TempDir(), src); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("CopyTree = %v, want a refusal of the symlink", err)
	}
}

// TestPostGolden renders POST.md from fixed inputs.
func TestPostGolden(t *testing.T) {
	var recs []results.Record
	for i, mbps := range []float64{9400, 9300, 9500, 21000, 20500, 21500} {
		mtu := "1500"
		if i >= 3 {
			mtu = "9000"
		}
		recs = append(recs, results.Record{Schema: results.Schema, RunID: "20261201T100000Z", Lab: "demo", Experiment: "mtu", Pair: "veth",
			Cell: []results.CellValue{{Name: "mtu", Value: mtu}}, CellKey: "mtu=" + mtu, CellIndex: i / 3, Repeat: i%3 + 1,
			Metrics:    bench.Sample{ThroughputBps: mbps * 1e6, Version: "iperf 3.12"},
			Provenance: results.Provenance{Provider: "local", Host: "vm", ServerKernel: "6.1.0", ToolVersion: "iperf 3.12"}})
	}
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	run := results.RunInfo{ID: "20261201T100000Z", Lab: "demo", LabVersion: "0.1.0", Host: "vm", Started: started,
		Status: results.StatusComplete, Experiments: []string{"mtu"}}
	p := Post{
		Info: Info{Format: Format, Lab: "demo", RunID: run.ID, SpecHash: "abc123", LabVersion: "0.1.0",
			Published: started.Add(time.Hour), Margin: 0.1, BackEnds: []string{"local"},
			HostNotes: []string{"TCG, no KVM acceleration"}, VarFile: VarFile, OmittedVariables: []string{"password"},
			Reproduce: "lab reproduce demo-bundle"},
		Run: run, Groups: results.Group(recs), Host: "vm", Kernel: "6.1.0", LoadAvg: "0.50 0.40 0.30",
		LockFile: true, Command: "lab reproduce demo-bundle",
	}
	var b strings.Builder
	if err := WritePost(&b, p); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "post.golden.md"), b.String())
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sparse makes rel under dir a sparse file of size bytes: it takes no disk
// and is written at once, but Stat reports its full size and reading it
// yields size zero bytes.
func sparse(t *testing.T, dir, rel string, size int64) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyBoundsSizes: Verify refuses a file over its limit before
// reading it (a 1 GiB spec file took 43 s and 1 GB of memory before the
// loader refused it), and a bundle over MaxTotal in all. The manifest
// lists each file with a made-up sum: the size is checked first.
func TestVerifyBoundsSizes(t *testing.T) {
	big := func(rel string, size int64) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			sparse(t, dir, rel, size)
			appendManifest(t, dir, rel)
		}
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		path   string
	}{
		{"1 GiB spec file", big("spec/zz.hcl", 1<<30), "spec/zz.hcl"},
		{"spec file one byte over", big("spec/zz.hcl", MaxSpecFile+1), "spec/zz.hcl"},
		{"record over the limit", big("records/R1/e/p/mtu=1500/r3.json", MaxFile+1), "records/R1/e/p/mtu=1500/r3.json"},
		{"bundle.json over its limit", func(t *testing.T, dir string) { sparse(t, dir, InfoFile, MaxInfoFile+1) }, InfoFile},
		{"over the total", func(t *testing.T, dir string) {
			for i := range int(MaxTotal/MaxFile) + 1 {
				big(fmt.Sprintf("records/R1/pad/r%d.json", i), MaxFile)(t, dir)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sample(t)
			tt.tamper(t, dir)
			start := time.Now()
			err := Verify(dir)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("Verify took %s: it read the file", took)
			}
			var te *TamperedError
			if !errors.As(err, &te) || !strings.Contains(te.Why, "bytes") || tt.path != "" && te.Path != tt.path {
				t.Fatalf("Verify = %v, want a refusal of %q for its size", err, tt.path)
			}
		})
	}
}

// appendManifest lists rel in dir's manifest with a made-up sum.
func appendManifest(t *testing.T, dir, rel string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ManifestFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(f, "%s  %s\n", strings.Repeat("0", 64), rel); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCopyBoundsSizes: CopyTree and CopySpec refuse a file over the limit
// without reading it, name it, and leave no partial copy.
func TestCopyBoundsSizes(t *testing.T) {
	src := t.TempDir()
	sparse(t, src, "a/huge.json", MaxFile+1)
	dst := filepath.Join(t.TempDir(), "d")
	if err := CopyTree(dst, src); err == nil || !strings.Contains(err.Error(), "huge.json") {
		t.Errorf("CopyTree = %v, want a refusal naming huge.json", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a/huge.json")); err == nil {
		t.Error("CopyTree left a partial copy")
	}

	dir := sample(t)
	sparse(t, dir, "spec/zz.hcl", 1<<30)
	dst = filepath.Join(t.TempDir(), "w")
	start := time.Now()
	_, err := CopySpec(dst, dir, Info{VarFile: VarFile})
	if err == nil || !strings.Contains(err.Error(), "zz.hcl") || time.Since(start) > 5*time.Second {
		t.Errorf("CopySpec = %v after %s, want a quick refusal naming zz.hcl", err, time.Since(start))
	}
	if _, err := os.Stat(filepath.Join(dst, "zz.hcl")); err == nil {
		t.Error("CopySpec left a partial copy")
	}
}

// TestCopySpec copies what a spec needs (top-level *.hcl, the lock file,
// the variables file) and names everything else it leaves out: another
// workspace's .lab/ state above all.
func TestCopySpec(t *testing.T) {
	dir := sample(t)
	write(t, filepath.Join(dir, "spec/.lab/state.json"), "{}")
	write(t, filepath.Join(dir, "spec/notes.txt"), "x")
	write(t, filepath.Join(dir, "spec/sub/b.hcl"), "x")
	write(t, filepath.Join(dir, "spec/.hidden.hcl"), "x")
	write(t, filepath.Join(dir, "spec/other.labvars"), "x")
	dst := filepath.Join(t.TempDir(), "w")
	ignored, err := CopySpec(dst, dir, Info{VarFile: VarFile})
	if err != nil {
		t.Fatal(err)
	}
	if want := ".hidden.hcl, .lab/, notes.txt, other.labvars, sub/"; strings.Join(ignored, ", ") != want {
		t.Errorf("ignored %q, want %s", ignored, want)
	}
	var got []string
	entries, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if want := ".lab.lock.hcl, lab.hcl, published.labvars"; strings.Join(got, ", ") != want {
		t.Errorf("copied %q, want %s", got, want)
	}
}
