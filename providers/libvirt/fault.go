package libvirt

import (
	"os"
	"strings"
	"syscall"
	"time"
)

// FaultEnv names, for tests, the points at which lab kills itself with
// SIGKILL — as a crash, an OOM kill or kill -9 would, with no cleanup at
// all — to prove that an interrupted create or delete leaves nothing lab
// cannot find again: LAB_FAULT=libvirt-after-define stops lab between a
// domain's definition and its overlay's creation (TestKVM, "killed
// between steps"). The points are the faultAfter* constants.
const FaultEnv = "LAB_FAULT"

// Fault points, in the order a create and a delete pass them.
const (
	faultAfterDefine        = "libvirt-after-define"         // domain defined (tagged), no volume yet
	faultAfterOverlay       = "libvirt-after-overlay"        // overlay made, domain not started
	faultAfterVolumesDelete = "libvirt-after-volumes-delete" // volumes deleted, domain still defined
)

// faultAt kills the process when LAB_FAULT names point; otherwise it does
// nothing.
func faultAt(point string) {
	v := os.Getenv(FaultEnv)
	if v == "" {
		return
	}
	for _, p := range strings.Split(v, ",") {
		if strings.TrimSpace(p) == point {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Hour) // the signal ends the process first
		}
	}
}
