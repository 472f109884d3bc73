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
		{[]string{"lab", "report", "-format", "c"}, []string{"csv", "csv-runs"}, "html"},
		{[]string{"lab", "report", "-format=time"}, []string{"-format=timeseries", "-format=timeseries-png"}, "-format=csv"},
		// compare takes its own formats, not report's (issue 35).
		{[]string{"lab", "compare", "-format", ""}, []string{"table", "svg", "html"}, "csv"},
		{[]string{"lab", "state", ""}, []string{"list", "show", "rm"}, "apply"},
		{[]string{"lab", "state", "rm", "-l"}, []string{"-lock-timeout"}, "-auto-approve"},
		{[]string{"lab", "completion", ""}, []string{"bash", "fish", "zsh"}, ""},
		{[]string{"lab", "help", "st"}, []string{"state"}, ""},
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
	if code, _, _ := runMain(t.TempDir(), "completion", "tcsh"); code != exitError {
		t.Errorf("completion tcsh: exit %d, want a clear error", code)
	}
}

// TestCompletionInFish sources `lab completion fish` in a real fish and
// asks it what it would complete (`complete -C LINE`, as Tab does).
func TestCompletionInFish(t *testing.T) {
	needBinary(t, "fish")
	tests := []struct {
		line  string
		want  []string
		never string
	}{
		{"lab ap", []string{"apply"}, "plan"},
		{"lab apply -au", []string{"-auto-approve"}, "-orphans"},
		{"lab report -format c", []string{"csv", "csv-runs"}, "html"},
		{"lab state ", []string{"list", "show", "rm"}, "apply"},
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spec.hcl"), nil, 0o644)
	tests = append(tests, struct {
		line  string
		want  []string
		never string
	}{"lab report " + filepath.Join(dir, "sp"), []string{filepath.Join(dir, "spec.hcl")}, ""})
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			cmd := exec.Command("fish", "--no-config", "-c", "lab completion fish | source; complete -C "+strconv.Quote(tc.line))
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(labBin)+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("fish: %v\n%s", err, out)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				got = append(got, strings.SplitN(l, "\t", 2)[0]) // fish prints "candidate<TAB>description"
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("completes %q, want %s among them", got, w)
				}
			}
			if tc.never != "" && slices.Contains(got, tc.never) {
				t.Errorf("completes %q, which should not hold %s", got, tc.never)
			}
		})
	}
}

func quoteWords(ws []string) string {
	var q []string
	for _, w := range ws {
		q = append(q, "'"+w+"'")
	}
	return strings.Join(q, " ")
}
