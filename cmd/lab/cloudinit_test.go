package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A template's cloud_init {} on a back end that cannot seed cloud images
// fails the plan at the block, before anything is created.
func TestCloudInitRefusedWhereUnsupported(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/quickstart/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(src), `  os = "linux" # the local back end runs guests as namespaces of this machine`,
		"  os = \"linux\"\n  cloud_init {\n    packages = [\"iperf3\"]\n  }", 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(body[:strings.Index(body, "cloud_init {")], "\n")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"-chdir=" + dir, "plan"}, strings.NewReader(""), &stdout, &stderr, nil)
	want := "lab.hcl line " + strconv.Itoa(line)
	if code == 0 || !strings.Contains(stderr.String(), "cloud-init not supported") || !strings.Contains(stderr.String(), want) {
		t.Fatalf("plan: exit %d, want a refusal at %s\n%s%s", code, want, stdout.String(), stderr.String())
	}
}
