package history

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/golden"
)

// runMain runs Main on dir's results.
func runMain(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, filepath.Join(dir, "results"), &out, &errOut)
	return code, out.String(), errOut.String()
}

// shifted is 17 applies at 9.4 Gb/s, then 6 at 7.5 Gb/s (−20 %) on a
// new kernel.
func shifted() []apply {
	as := levels(23, 9.4e9)
	for i := 17; i < len(as); i++ {
		as[i] = apply{level: 7.5e9, kernel: "6.1.0-21", labVer: "v0.9.0"}
	}
	return as
}

// TestMainFindsShift runs the nightly gate (-fail-on change) after each
// apply of a series with an injected 20 % drop at apply 18: it exits 0
// every night before the drop, 2 on exactly one night after it (the
// first whose series shows the change), and 0 on the nights after that,
// when the change is no longer new. That night's text and the last
// night's JSON are golden files (-update); the drop is reported with its
// magnitude and the kernel that differs across it, and the steady
// mtu=9000 cell has no change point.
func TestMainFindsShift(t *testing.T) {
	all := shifted()
	fired := 0
	for night := 16; night <= len(all); night++ {
		dir := t.TempDir()
		writeApplies(t, dir, 7, 0.03, all[:night])
		code, out, errOut := runMain(t, dir, "-fail-on", "change")
		switch {
		case code == ExitChange && night >= 18:
			fired++
			for _, want := range []string{"change at apply 1", "6.1.0-21 (new from 20261118T020000Z)", "new: not found without the newest apply",
				"tcp/veth mtu=9000 — throughput_bps: ", "no change point"} {
				if !strings.Contains(out, want) {
					t.Errorf("night %d: output lacks %q:\n%s", night, want, out)
				}
			}
			golden.Check(t, "testdata/shift.golden", out)
		case code != ExitOK:
			t.Errorf("night %d: exit %d\n%s%s", night, code, out, errOut)
		}
		if night == len(all) {
			if !strings.Contains(out, "change at apply 18 of 23") {
				t.Errorf("last night: the drop is not at apply 18:\n%s", out)
			}
			_, js, _ := runMain(t, dir, "-json", "-only", "mtu=1500")
			golden.Check(t, "testdata/shift.json.golden", js)
		}
	}
	if fired != 1 {
		t.Errorf("the gate fired on %d nights, want 1", fired)
	}
}

// TestMainAA: an A/A series (20 applies at one level, 10 % noise per
// repeat) has no change point, and -fail-on change exits 0.
func TestMainAA(t *testing.T) {
	dir := t.TempDir()
	writeApplies(t, dir, 11, 0.10, levels(20, 9.4e9))
	code, out, errOut := runMain(t, dir, "-fail-on", "change", "-only", "mtu=1500")
	if code != ExitOK || strings.Count(out, "no change point") != 1 || strings.Contains(out, "change at") {
		t.Errorf("A/A: exit %d\n%s%s", code, out, errOut)
	}
}

// TestMainSelection: -only, -since and -metric narrow the series.
func TestMainSelection(t *testing.T) {
	dir := t.TempDir()
	writeApplies(t, dir, 7, 0.03, shifted())
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-only", "mtu=9000"}, "tcp/veth mtu=9000 — throughput_bps: 23 applies"},
		{[]string{"-only", "pair=veth,mtu=1500", "-since", "2026-11-11"}, "tcp/veth mtu=1500 — throughput_bps: 13 applies"},
		{[]string{"-only", "pair=nope"}, "no applies recorded a value"},
		{[]string{"-metric", "retransmits", "-only", "mtu=1500"}, "mtu=1500 — retransmits: 23 applies"},
	}
	for _, tt := range tests {
		code, out, errOut := runMain(t, dir, tt.args...)
		if code != ExitOK || !strings.Contains(out, tt.want) || strings.Count(out, " applies, ") > 1 {
			t.Errorf("%v: exit %d, want %q\n%s%s", tt.args, code, tt.want, out, errOut)
		}
	}
}

// TestMainUsageErrors: wrong flags are errors naming what is allowed.
func TestMainUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-format", "svg"}, `-format "svg": want text, json, html`},
		{[]string{"-fail-on", "regressed"}, "the only verdict is change"},
		{[]string{"-metric", "speed"}, `unknown metric`},
		{[]string{"-since", "yesterday"}, "want a date"},
		{[]string{"-only", "mtu"}, "want key=value"},
		{[]string{"extra"}, "takes no arguments"},
	} {
		code, _, errOut := runMain(t, dir, tt.args...)
		if code != ExitError || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// TestMainArchive: -archive reads the same series from an archive
// (internal/archive, SQLite) as from results/ — the same text, change
// point and provenance included — and a file that is not there is an
// error, not a new empty archive.
func TestMainArchive(t *testing.T) {
	dir := t.TempDir()
	rs := writeApplies(t, dir, 7, 0.03, shifted())
	location := filepath.Join(t.TempDir(), "archive.sqlite")
	st, err := archive.Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := rs.Runs()
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range runs {
		run, err := archive.ReadRun(filepath.Join(rs.Dir, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Put(context.Background(), run); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	_, want, _ := runMain(t, dir)
	code, got, errOut := runMain(t, dir, "-archive", location)
	if code != ExitOK || got != want || !strings.Contains(got, "change at apply 18 of 23") {
		t.Errorf("-archive: exit %d\n%s\nresults/ gave:\n%s%s", code, got, want, errOut)
	}
	missing := filepath.Join(t.TempDir(), "none.sqlite")
	if code, _, errOut := runMain(t, dir, "-archive", missing); code != ExitError || !strings.Contains(errOut, "no archive there") {
		t.Errorf("missing archive: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("-archive created an archive that was not there")
	}
}

// TestMainMetrics: several -metric keys give one series per cell and
// metric, in -metric's order.
func TestMainMetrics(t *testing.T) {
	dir := t.TempDir()
	writeApplies(t, dir, 7, 0.03, levels(4, 9.4e9))
	_, out, errOut := runMain(t, dir, "-metric", "retransmits,throughput_bps", "-only", "mtu=1500")
	i, j := strings.Index(out, "— retransmits: 4 applies"), strings.Index(out, "— throughput_bps: 4 applies")
	if i < 0 || j < i || strings.Count(out, " applies, ") != 2 {
		t.Errorf("want retransmits then throughput:\n%s%s", out, errOut)
	}
}
