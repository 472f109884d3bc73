package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzRetriesOnlyTheCoordinatorRace runs scripts/fuzz.sh with a stand-in
// for `go` that answers as go test -fuzz does (testing/fuzz.go prints the
// coordinator's error indented under "--- FAIL: Target"; a crasher is
// written under testdata/fuzz/<Target>/ first): Go's deadline race with no
// input written is run once more and then passes; a written input, or the
// race twice, fails the suite.
func TestFuzzRetriesOnlyTheCoordinatorRace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies []string // per call: "pass", "race" or "crash"
		wantErr bool
		calls   int
	}{
		{"passes", []string{"pass"}, false, 1},
		{"race, then passes", []string{"race", "pass"}, false, 2},
		{"race twice", []string{"race", "race"}, true, 2},
		{"a crasher fails at once", []string{"crash", "pass"}, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pkg := filepath.Join(dir, "pkg")
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				t.Fatal(err)
			}
			calls := filepath.Join(dir, "calls")
			fake := filepath.Join(dir, "go")
			script := `#!/usr/bin/env bash
n=$(( $(cat "` + calls + `" 2>/dev/null || echo 0) + 1 )); echo $n >"` + calls + `"
case $(sed -n "${n}p" "` + filepath.Join(dir, "replies") + `") in
pass) echo ok; exit 0 ;;
race) printf -- '--- FAIL: FuzzX (4.03s)\n    context deadline exceeded\nFAIL\n'; exit 1 ;;
crash) mkdir -p "` + pkg + `/testdata/fuzz/FuzzX"; echo x >"` + pkg + `/testdata/fuzz/FuzzX/abc"
       printf -- '--- FAIL: FuzzX (0.10s)\n    Failing input written to testdata/fuzz/FuzzX/abc\nFAIL\n'; exit 1 ;;
esac
`
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "replies"), []byte(strings.Join(tc.replies, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("bash", "fuzz.sh", fake, "1s", pkg+":FuzzX").CombinedOutput()
			if (err != nil) != tc.wantErr {
				t.Errorf("err %v, want failure %v\n%s", err, tc.wantErr, out)
			}
			b, _ := os.ReadFile(calls)
			if got := strings.TrimSpace(string(b)); got != string(rune('0'+tc.calls)) {
				t.Errorf("go test ran %s times, want %d\n%s", got, tc.calls, out)
			}
		})
	}
}
