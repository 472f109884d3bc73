package main

import (
	"strings"
	"testing"
)

// TestHistoryVerb: `lab history` is wired to internal/history — it reads
// the lab directory's results/ (-chdir), its exit status is history's
// (a usage error: 1), and help and completion know its flags.
func TestHistoryVerb(t *testing.T) {
	dir := t.TempDir()
	writeOnlyRun(t, dir)
	code, out, errOut := runLab(t, "", "-chdir="+dir, "history", "-fail-on", "change")
	if code != 0 || !strings.Contains(out, "e/a mtu=1500 — throughput_bps: 1 applies") {
		t.Errorf("history: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runLab(t, "", "history", "-fail-on", "regressed"); code != 1 || !strings.Contains(errOut, "the only verdict is change") {
		t.Errorf("history -fail-on regressed: exit %d\n%s", code, errOut)
	}
	if _, out, _ := runLab(t, "", "help", "history"); !strings.Contains(out, "-fail-on change") {
		t.Errorf("help history:\n%s", out)
	}
	if _, out, _ := runLab(t, "", "__complete", "--", "history", "-"); !strings.Contains(out, "-archive") {
		t.Errorf("completion of history's flags:\n%s", out)
	}
}
