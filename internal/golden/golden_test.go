package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"changed line", "a\nb\nc\n", "a\nB\nc\n", "@@ line 1\n a\n-b\n+B\n c\n"},
		{"added at end", "a\n", "a\nb\n", "@@ line 1\n a\n+b\n"},
		{"removed at start", "a\nb\n", "b\n", "@@ line 1\n-a\n b\n"},
		{"missing final newline", "a\n", "a", "@@ line 1\n-a\n+a\n\\ no newline at end\n"},
		{"from empty", "", "a\n", "@@ line 1\n+a\n"},
		{
			"two distant changes",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			"1\nX\n3\n4\n5\n6\n7\nY\n9\n",
			"@@ line 1\n 1\n-2\n+X\n 3\n 4\n@@ line 6\n 6\n 7\n-8\n+Y\n 9\n",
		},
		{
			"close changes share context",
			"1\n2\n3\n4\n5\n",
			"1\nX\n3\nY\n5\n",
			"@@ line 1\n 1\n-2\n+X\n 3\n-4\n+Y\n 5\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diff(tt.a, tt.b); got != tt.want {
				t.Errorf("diff(%q, %q) =\n%s\nwant\n%s", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.fatals = append(r.fatals, fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		path      string
		got       string
		wantError string // substring of the one failure expected, "" for none
		fatal     bool
	}{
		{"same", path, "one\ntwo\n", "", false},
		{"differs", path, "one\n2\n", "-two\n+2\n", false},
		{"missing golden file", filepath.Join(dir, "none.golden"), "x", "-update to create it", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, tt.path, tt.got)
			Check(r, tt.path, []byte(tt.got)) // the same for bytes
			fails := r.errors
			if tt.fatal {
				fails = r.fatals
			}
			if tt.wantError == "" {
				if len(r.errors)+len(r.fatals) != 0 {
					t.Errorf("failures %q, want none", append(r.errors, r.fatals...))
				}
				return
			}
			if len(fails) != 2 || len(r.errors)+len(r.fatals) != 2 {
				t.Fatalf("errors %q, fatals %q: want one failure per call", r.errors, r.fatals)
			}
			if !strings.Contains(fails[0], tt.wantError) || !strings.Contains(fails[0], tt.path) {
				t.Errorf("failure %q: want it to contain %q and the path", fails[0], tt.wantError)
			}
		})
	}
}

func TestCheckUpdate(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "testdata", "new.golden")
	r := &recorder{TB: t}
	Check(r, path, "fresh\n")
	if len(r.errors)+len(r.fatals) != 0 {
		t.Fatalf("failures with -update: %q %q", r.errors, r.fatals)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "fresh\n" {
		t.Errorf("golden file = %q (%v), want the output", got, err)
	}
	if !Update() {
		t.Error("Update() = false with -update")
	}
}
