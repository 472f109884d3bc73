package operation

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
)

// TestInterruptSignalsKeepNohup: SIGHUP is caught as an interrupt, except
// when it is ignored (`nohup lab apply`): asking signal.Notify for it
// would un-ignore it, and a closed terminal would then stop the apply.
func TestInterruptSignalsKeepNohup(t *testing.T) {
	if !slices.Contains(interruptSignals(), os.Signal(syscall.SIGHUP)) {
		t.Errorf("SIGHUP not caught: %v", interruptSignals())
	}
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	if sigs := interruptSignals(); slices.Contains(sigs, os.Signal(syscall.SIGHUP)) {
		t.Errorf("SIGHUP ignored (nohup), but caught: %v", sigs)
	}
}
