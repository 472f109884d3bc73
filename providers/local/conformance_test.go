package local

import (
	"os"
	"os/exec"
	"testing"

	"github.com/lab-bench/lab/providers/providertest"
)

// TestConformance runs the provider contract's suite against real
// namespaces and veths on this machine.
func TestConformance(t *testing.T) {
	needRoot(t)
	providertest.Conformance(t, providertest.Harness{Type: TypeName, Template: `  os = "linux"`, Pair: `  vcpu = 1`, LabID: "cf"})
}

// needRoot skips a test that needs root and iproute2, except under CI
// (CI=true), where a missing prerequisite is a failure, not a skip.
func needRoot(t *testing.T) {
	t.Helper()
	skip := t.Skip
	if os.Getenv("CI") == "true" {
		skip = t.Fatal
	}
	if os.Geteuid() != 0 {
		skip("needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		skip("needs iproute2")
	}
}
