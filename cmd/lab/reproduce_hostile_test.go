package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/spec"
)

// These tests hand lab reproduce hostile bundles (issue 31 §1): each is a
// real published bundle, edited, its manifest recomputed (the manifest is
// a checksum anyone can recompute, not a signature), run by the real
// binary with standard input at /dev/null.

// publishedBundle publishes a fake complete run of publishSecretLab and
// returns the lab directory, the bundle and the run id.
func publishedBundle(t *testing.T) (labDir, out, runID string) {
	t.Helper()
	labDir = t.TempDir()
	if err := os.WriteFile(filepath.Join(labDir, "lab.hcl"), []byte(publishSecretLab), 0o644); err != nil {
		t.Fatal(err)
	}
	l, diags := spec.Load(labDir, spec.Options{Vars: []string{"token=x"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	runID = fakeRun(t, labDir, l.Hash)
	out = filepath.Join(t.TempDir(), "b")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-chdir=" + labDir, "publish", "-o", out, "-var", "token=x"}, nil, &stdout, &stderr, nil); code != exitOK {
		t.Fatalf("publish: exit %d\n%s", code, stderr.String())
	}
	return labDir, out, runID
}

// editInfo rewrites the bundle's bundle.json through edit and re-signs it.
func editInfo(t *testing.T, dir string, edit func(*bundle.Info)) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, bundle.InfoFile))
	if err != nil {
		t.Fatal(err)
	}
	var info bundle.Info
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	edit(&info)
	if err := bundle.WriteInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	resign(t, dir)
}

func resign(t *testing.T, dir string) {
	t.Helper()
	if err := bundle.Sign(dir); err != nil {
		t.Fatal(err)
	}
}

// writeIn writes body to rel under dir, making directories.
func writeIn(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReproduceRefusesVarFileOutsideSpec: a var_file naming a file outside
// spec/ (relative or absolute) is refused before anything reads it, in
// both modes, and none of the file's content is printed. Before, its
// lines came out as HCL diagnostics ("/etc/shadow" read as variables).
func TestReproduceRefusesVarFileOutsideSpec(t *testing.T) {
	labDir, pub, runID := publishedBundle(t)
	const secretLine = "root:$6$bundleSecretHash:19000:0:99999:7:::"
	secret := filepath.Join(t.TempDir(), "shadow")
	writeIn(t, filepath.Dir(secret), "shadow", secretLine+"\n")
	for _, tt := range []struct {
		name    string
		varFile func(b string) string
	}{
		{"traversal", func(b string) string {
			rel, err := filepath.Rel(filepath.Join(b, bundle.SpecDir), secret)
			if err != nil {
				t.Fatal(err)
			}
			return rel
		}},
		{"absolute", func(string) string { return secret }},
	} {
		for _, mode := range [][]string{{"-work", "WORK"}, {"-results", runID}} {
			t.Run(tt.name+" "+mode[0], func(t *testing.T) {
				b := copyBundle(t, pub)
				editInfo(t, b, func(i *bundle.Info) { i.VarFile = tt.varFile(b) })
				args := []string{"reproduce", "-var", "token=x", mode[0], mode[1], b}
				if mode[1] == "WORK" {
					args[4] = filepath.Join(t.TempDir(), "w")
				}
				stdout, stderr, err := lab(t, labDir, args...)
				if exitStatus(err) != exitError || !strings.Contains(stderr, "var_file") {
					t.Errorf("exit %d; want 1 and an error about var_file\nstdout:\n%s\nstderr:\n%s", exitStatus(err), stdout, stderr)
				}
				if strings.Contains(stdout+stderr, "bundleSecretHash") {
					t.Errorf("reproduce printed the target's content:\n%s%s", stdout, stderr)
				}
			})
		}
	}
}

// TestReproduceIgnoresBundleState: a bundle's spec/ carrying a .lab/
// directory (another workspace's state: its machines would plan "exists,
// reused", and an apply tear them down) or anything else a spec does not
// need is not copied; reproduce says in one line what it left out, in
// both modes.
func TestReproduceIgnoresBundleState(t *testing.T) {
	labDir, pub, runID := publishedBundle(t)
	b := copyBundle(t, pub)
	const state = `{"version": 1, "lab": "pub", "objects": {"pair.veth.server": {"id": "other-workspace"}}}`
	writeIn(t, b, "spec/.lab/state.json", state)
	writeIn(t, b, "spec/notes.txt", "not spec\n")
	writeIn(t, b, "spec/sub/more.hcl", "# not read by the spec loader either\n")
	resign(t, b)

	work := filepath.Join(t.TempDir(), "w")
	stdout, stderr, _ := lab(t, labDir, "reproduce", "-var", "token=x", "-work", work, b)
	if _, err := os.Stat(filepath.Join(work, ".lab", "state.json")); err == nil {
		if got, _ := os.ReadFile(filepath.Join(work, ".lab", "state.json")); string(got) == state {
			t.Errorf("the bundle's state was copied into the work directory")
		}
	}
	for _, name := range []string{"notes.txt", "sub"} {
		if _, err := os.Stat(filepath.Join(work, name)); err == nil {
			t.Errorf("%s was copied into the work directory", name)
		}
	}
	for _, want := range []string{"lab.hcl", bundle.VarFile} {
		if _, err := os.Stat(filepath.Join(work, want)); err != nil {
			t.Errorf("%s was not copied: %v", want, err)
		}
	}
	checkIgnoredLine(t, stdout+stderr)

	stdout, stderr, err := lab(t, labDir, "reproduce", "-json", "-var", "token=x", "-results", runID, b)
	if exitStatus(err) == exitError {
		t.Errorf("reproduce -results: %v\n%s%s", err, stdout, stderr)
	}
	checkIgnoredLine(t, stdout+stderr)
}

// checkIgnoredLine wants one line naming each file or directory of spec/
// a spec does not need.
func checkIgnoredLine(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Ignored") && strings.Contains(l, ".lab/") && strings.Contains(l, "notes.txt") && strings.Contains(l, "sub/") {
			return
		}
	}
	t.Errorf("no line saying .lab/, notes.txt and sub/ were ignored:\n%s", out)
}

// hostsSpec is publishSecretLab run on the hosts back end at 127.0.0.1:
// as root, with the runner's default key, it would change MTU, offloads,
// sysctls and firewall rules on the machine reproducing it.
var hostsSpec = strings.Replace(publishSecretLab, `template "host" { os = "linux" }`, `provider "hosts" "borrowed" {
  server {
    address       = "127.0.0.1"
    port          = 2222
    iface         = "lo"
    bench_address = "127.0.0.1"
  }
  client {
    address       = "localhost"
    user          = "bench"
    iface         = "lo"
    bench_address = "127.0.0.1"
  }
}
template "host" {
  os       = "linux"
  provider = provider.hosts.borrowed
}`, 1)

// withSpec replaces the bundle's spec with src and re-signs it, with
// bundle.json's spec hash updated as a forger would.
func withSpec(t *testing.T, b, src string, edit func(*bundle.Info)) {
	t.Helper()
	writeIn(t, b, "spec/lab.hcl", src)
	l, diags := spec.Load(filepath.Join(b, bundle.SpecDir), spec.Options{Vars: []string{"token=x"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	editInfo(t, b, func(i *bundle.Info) {
		i.SpecHash = l.Hash
		edit(i)
	})
}

// TestReproducePreApplyChecks: what bundle.json claims is checked against
// the spec right after it loads, before any plan or apply — the lab name
// and the back ends the spec really uses — and where the bundle will
// connect is said before anything connects.
func TestReproducePreApplyChecks(t *testing.T) {
	labDir, pub, _ := publishedBundle(t)
	for _, tt := range []struct {
		name   string
		src    string
		edit   func(*bundle.Info)
		want   []string // in stderr, exit 1
		stdout []string // in stdout
	}{
		{"lab name mismatch", publishSecretLab, func(i *bundle.Info) { i.Lab = "other" },
			[]string{`"other"`, `"pub"`}, nil},
		{"back ends claimed local, spec uses hosts", hostsSpec, func(i *bundle.Info) { i.BackEnds = []string{"local"} },
			[]string{"back_ends", `["local"]`, `["hosts"]`}, nil},
		{"back ends claimed hosts and local, spec uses hosts", hostsSpec, func(i *bundle.Info) { i.BackEnds = []string{"hosts", "local"} },
			[]string{"back_ends", `["hosts" "local"]`, `["hosts"]`}, nil},
		{"hosts, claimed", hostsSpec, func(i *bundle.Info) { i.BackEnds = []string{"hosts"} },
			nil, []string{"This bundle will connect to: ", "root@127.0.0.1:2222", "bench@localhost:22"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := copyBundle(t, pub)
			withSpec(t, b, tt.src, tt.edit)
			work := filepath.Join(t.TempDir(), "w")
			stdout, stderr, err := lab(t, labDir, "reproduce", "-var", "token=x", "-work", work, b)
			for _, w := range tt.want {
				if exitStatus(err) != exitError || !strings.Contains(stderr, w) {
					t.Errorf("exit %d; want 1 and %q in stderr\nstdout:\n%s\nstderr:\n%s", exitStatus(err), w, stdout, stderr)
				}
			}
			if tt.want != nil && strings.Contains(stdout, "Plan:") {
				t.Errorf("a plan was made before the refusal:\n%s", stdout)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", w, stdout, stderr)
				}
			}
		})
	}
}

// TestReproduceRefusesHostileFiles: a bundle's files are bounded before
// they are read, and bundle.json's run id is refused with its control
// bytes quoted. The manifest lists the sparse file with a made-up sum:
// the size is checked before anything is hashed.
func TestReproduceRefusesHostileFiles(t *testing.T) {
	labDir, pub, _ := publishedBundle(t)
	for _, tt := range []struct {
		name   string
		tamper func(t *testing.T, b string)
		want   string
	}{
		{"1 GiB sparse spec file", func(t *testing.T, b string) {
			f, err := os.Create(filepath.Join(b, "spec", "zz.hcl"))
			if err == nil {
				err = f.Truncate(1 << 30)
			}
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := os.OpenFile(filepath.Join(b, bundle.ManifestFile), os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, err = m.WriteString(strings.Repeat("0", 64) + "  spec/zz.hcl\n")
			}
			if err == nil {
				err = m.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}, "spec/zz.hcl: has 1073741824 bytes"},
		{"ESC in the run id", func(t *testing.T, b string) {
			editInfo(t, b, func(i *bundle.Info) { i.RunID = "20261201T090000Z\x1b]0;owned\x07" })
		}, `invalid run id "20261201T090000Z\x1b]0;owned\a"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := copyBundle(t, pub)
			tt.tamper(t, b)
			work := filepath.Join(t.TempDir(), "w")
			start := time.Now()
			stdout, stderr, err := lab(t, labDir, "reproduce", "-var", "token=x", "-work", work, b)
			took := time.Since(start)
			if exitStatus(err) != exitError || !strings.Contains(stderr, tt.want) || strings.ContainsAny(stdout+stderr, "\x1b\x07") {
				t.Errorf("exit %d; want 1 and %q, no control byte\nstdout:\n%q\nstderr:\n%q", exitStatus(err), tt.want, stdout, stderr)
			}
			if _, err := os.Stat(work); err == nil {
				t.Errorf("reproduce made the work directory before refusing the bundle")
			}
			t.Logf("refused in %s", took.Round(time.Millisecond))
		})
	}
}
