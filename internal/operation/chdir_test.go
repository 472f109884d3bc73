package operation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckChdir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lab.hcl")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexistent")
	for _, tc := range []struct{ dir, want string }{
		{dir, ""},
		{missing, "-chdir=" + missing + ": no such directory"},
		{file, "-chdir=" + file + ": not a directory"},
	} {
		err := CheckChdir(tc.dir)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckChdir(%s) = %v, want %q", tc.dir, err, tc.want)
		}
	}
}
