package libvirt

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestFaultAtKills runs this test binary again as a child that passes a
// fault point: named in LAB_FAULT it dies of SIGKILL there; otherwise it
// goes on.
func TestFaultAtKills(t *testing.T) {
	if os.Getenv("LAB_FAULT_CHILD") == "1" {
		faultAt(faultAfterDefine)
		os.Exit(0)
	}
	for _, tc := range []struct {
		env    string
		killed bool
	}{
		{faultAfterOverlay + "," + faultAfterDefine, true},
		{faultAfterOverlay, false},
		{"", false},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFaultAtKills$")
		cmd.Env = append(os.Environ(), "LAB_FAULT_CHILD=1", FaultEnv+"="+tc.env)
		err := cmd.Run()
		var ee *exec.ExitError
		killed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
		if killed != tc.killed || (!tc.killed && err != nil) {
			t.Errorf("LAB_FAULT=%q: %v, want killed %v", tc.env, err, tc.killed)
		}
	}
}
