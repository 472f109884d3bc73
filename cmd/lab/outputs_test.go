package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/operation"
)

// TestOutputsKeepDevicesAndSymlinks: `plan -out` and `report -o` write
// through a device (an error of /dev/full names it) and a symlink's target,
// and never replace either (issue 20, section 2).
func TestOutputsKeepDevicesAndSymlinks(t *testing.T) {
	labDir := t.TempDir()
	src, err := os.ReadFile("../../examples/quickstart/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(labDir, "lab.hcl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	writeOnlyRun(t, runDir)

	tmp := t.TempDir()
	planTarget, reportTarget := filepath.Join(tmp, "plan.json"), filepath.Join(tmp, "report.csv")
	planLink, reportLink := filepath.Join(tmp, "latest-plan"), filepath.Join(tmp, "latest.csv")
	for target, link := range map[string]string{planTarget: planLink, reportTarget: reportLink} {
		if err := os.Symlink(filepath.Base(target), link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		args     []string
		path     string // must keep its type
		wantCode int
		want     string // in stdout+stderr
		file     string // written, with this beginning
		begins   string
	}{
		{"plan to /dev/full", []string{"-chdir=" + labDir, "plan", "-out", "/dev/full"}, "/dev/full", 1,
			"write /dev/full: no space left on device", "", ""},
		{"plan to /dev/null", []string{"-chdir=" + labDir, "plan", "-out", "/dev/null"}, "/dev/null", 0,
			"Wrote the plan to /dev/null (not a regular file, so written through", "", ""},
		{"plan through a symlink", []string{"-chdir=" + labDir, "plan", "-out", planLink}, planLink, 0,
			"Saved the plan to " + planTarget + " (the target of the symlink " + planLink + ")", planTarget, "{"},
		{"report to /dev/full", []string{"-chdir=" + runDir, "report", "-format", "csv", "-o", "/dev/full"}, "/dev/full", 1,
			"write /dev/full: no space left on device", "", ""},
		{"report to /dev/null", []string{"-chdir=" + runDir, "report", "-format", "csv", "-o", "/dev/null"}, "/dev/null", 0,
			"report of run", "", ""},
		{"report through a symlink", []string{"-chdir=" + runDir, "report", "-o", reportLink}, reportLink, 0,
			"to " + reportTarget + " (the target of the symlink " + reportLink + ")", reportTarget, "experiment,pair,"},
		{"report to a directory", []string{"-chdir=" + runDir, "report", "-format", "csv", "-o", tmp}, tmp, 1,
			"write " + tmp + ": is a directory", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.Lstat(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runLab(t, "", tc.args...)
			if code != tc.wantCode || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d (want %d), want %q in:\n%s%s", code, tc.wantCode, tc.want, out, errOut)
			}
			after, err := os.Lstat(tc.path)
			if err != nil || !os.SameFile(before, after) || before.Mode().Type() != after.Mode().Type() {
				t.Errorf("%s was replaced: was %v, now %v (%v)", tc.path, before.Mode(), after, err)
			}
			if tc.file != "" {
				got, err := os.ReadFile(tc.file)
				if err != nil || !strings.HasPrefix(string(got), tc.begins) {
					t.Errorf("%s: %q (%v), want it to begin %q", tc.file, got[:min(len(got), 40)], err, tc.begins)
				}
			}
		})
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device: %v %v", dev, fi, err)
		}
	}
}

// TestJUnitKeepsDevicesAndSymlinks: `check -junit FILE` writes like
// `report -o`: through a device (the error of /dev/full names it) and a
// symlink's target, never replacing either.
func TestJUnitKeepsDevicesAndSymlinks(t *testing.T) {
	tmp := t.TempDir()
	target, link := filepath.Join(tmp, "junit.xml"), filepath.Join(tmp, "latest.xml")
	if err := os.Symlink(filepath.Base(target), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, wantErr string
	}{
		{"/dev/full", "-junit: write /dev/full: no space left on device"},
		{"/dev/null", ""},
		{link, ""},
		{tmp, "-junit: write " + tmp + ": is a directory"},
	} {
		before, err := os.Lstat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		err = operation.WriteJUnit(tc.path, "20261130T100000Z", nil, false)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
			t.Errorf("writeJUnit(%s) = %v, want an error beginning %q", tc.path, err, tc.wantErr)
		}
		after, err := os.Lstat(tc.path)
		if err != nil || !os.SameFile(before, after) || before.Mode().Type() != after.Mode().Type() {
			t.Errorf("%s was replaced: was %v, now %v (%v)", tc.path, before.Mode(), after, err)
		}
	}
	if b, err := os.ReadFile(target); err != nil || !strings.Contains(string(b), "<testsuites") {
		t.Errorf("the symlink's target: %q, %v; want the JUnit XML", b, err)
	}
}

// TestPublishOutKeepsDevicesAndSymlinks: `publish -o DIR` renames the
// bundle into place, so whatever is at DIR and is not an empty directory
// — a device, a regular file, a symlink even to an empty directory — is
// refused with its path and left as it was.
func TestPublishOutKeepsDevicesAndSymlinks(t *testing.T) {
	tmp := t.TempDir()
	empty, file := filepath.Join(tmp, "empty"), filepath.Join(tmp, "file")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	toEmpty, dangling := filepath.Join(tmp, "to-empty"), filepath.Join(tmp, "dangling")
	for link, target := range map[string]string{toEmpty: "empty", dangling: "nowhere"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/full", "publish -o /dev/full: "},
		{"/dev/null", "publish -o /dev/null: "},
		{file, "publish -o " + file + ": "},
		{toEmpty, "publish -o " + toEmpty + ": is a symbolic link (to empty)"},
		{dangling, "publish -o " + dangling + ": is a symbolic link (to nowhere)"},
	} {
		before, err := os.Lstat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := operation.NewBundleDir(tc.path)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("operation.NewBundleDir(%s) = %q, %v; want an error beginning %q", tc.path, dir, err, tc.want)
		}
		after, err := os.Lstat(tc.path)
		if err != nil || !os.SameFile(before, after) || before.Mode().Type() != after.Mode().Type() {
			t.Errorf("%s was changed: was %v, now %v (%v)", tc.path, before.Mode(), after, err)
		}
	}
	if dir, err := operation.NewBundleDir(empty); err != nil || filepath.Dir(dir) != tmp {
		t.Errorf("operation.NewBundleDir(an empty directory) = %q, %v; want a temporary directory beside it", dir, err)
	}
}
