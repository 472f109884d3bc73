package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGotestFailsWithEitherSide: gotest.sh pipes go test into the summary;
// a failure of either must fail the step (a pipe without pipefail once
// reports only its last command). The fake go builds a "summary" that
// copies its input and exits SUMMARY_RC, and its "test" exits TEST_RC.
func TestGotestFailsWithEitherSide(t *testing.T) {
	dir := t.TempDir()
	fakeGo := filepath.Join(dir, "go")
	script := "#!/bin/sh\n" +
		"case $1 in\n" +
		"build) printf '#!/bin/sh\\ncat\\nexit %s\\n' \"$SUMMARY_RC\" >\"$3\"; chmod +x \"$3\" ;;\n" +
		"test) echo '{\"Action\":\"output\",\"Output\":\"x\\\\n\"}'; exit $TEST_RC ;;\n" +
		"esac\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		testRC, summaryRC string
		ok                bool
	}{
		{"0", "0", true},
		{"1", "0", false},
		{"0", "1", false},
		{"2", "1", false},
	} {
		cmd := exec.Command("bash", "gotest.sh", fakeGo, "./x")
		cmd.Env = append(os.Environ(), "TEST_RC="+c.testRC, "SUMMARY_RC="+c.summaryRC)
		out, err := cmd.CombinedOutput()
		if (err == nil) != c.ok {
			t.Errorf("go test exit %s, summary exit %s: gotest.sh err = %v, want ok %v\n%s", c.testRC, c.summaryRC, err, c.ok, out)
		}
	}
}
