package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCompletionInBash sources `lab completion bash` in a real bash and
// asks it what it would complete, as the shell does on Tab.
func TestCompletionInBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	tests := []struct {
		line  []string // COMP_WORDS; the last one is being completed
		want  []string
		never string
	}{
		{[]string{"lab", "ap"}, []string{"apply"}, "plan"},
		{[]string{"lab", "-chdir=x", "de"}, []string{"destroy"}, ""},
		{[]string{"lab", "apply", "-au"}, []string{"-auto-approve"}, "-orphans"},
		{[]string{"lab", "destroy", "-or"}, []string{"-orphans"}, ""},
		{[]string{"lab", "report", "-f"}, []string{"-format"}, ""},
	}
	bin := filepath.Dir(labBin)
	for _, tc := range tests {
		t.Run(strings.Join(tc.line, " "), func(t *testing.T) {
			script := `eval "$(lab completion bash)"
COMP_WORDS=(` + quoteWords(tc.line) + `); COMP_CWORD=` + strconv.Itoa(len(tc.line)-1) + `
_lab; printf '%s\n' "${COMPREPLY[@]}"`
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			got := strings.Fields(string(out))
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("completes %v, want %s among them", got, w)
				}
			}
			if tc.never != "" && slices.Contains(got, tc.never) {
				t.Errorf("completes %v, which should not hold %s", got, tc.never)
			}
		})
	}
	if code, _, _ := runMain(t.TempDir(), "completion", "fish"); code != exitError {
		t.Errorf("completion fish: exit %d, want a clear error", code)
	}
}

func quoteWords(ws []string) string {
	var q []string
	for _, w := range ws {
		q = append(q, "'"+w+"'")
	}
	return strings.Join(q, " ")
}
