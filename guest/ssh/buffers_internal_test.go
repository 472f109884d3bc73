package ssh

import (
	"bytes"
	"sync"
	"testing"
)

// TestBuffersReadWhileWritten: Run reads stdout and stderr while the
// session's copying goroutine may still write them (a cancelled command
// whose session outlives closeWait; CI's race detector caught a plain
// bytes.Buffer read so in TestRealSSHD). Under -race this fails for any
// buffer read without the writer's lock.
func TestBuffersReadWhileWritten(t *testing.T) {
	var out lockedBuffer
	pw := &pidWriter{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 200 {
			_, _ = out.Write([]byte("line\n"))
		}
	}()
	go func() {
		defer wg.Done()
		_, _ = pw.Write([]byte(pidPrefix + "42\n"))
		for range 200 {
			_, _ = pw.Write([]byte("err\n"))
		}
	}()
	for range 50 {
		_ = out.Bytes()
		_ = pw.Bytes()
	}
	wg.Wait()
	if got := out.Bytes(); !bytes.Equal(got, bytes.Repeat([]byte("line\n"), 200)) {
		t.Errorf("stdout: %d bytes, want %d", len(got), 200*5)
	}
	if got := pw.Bytes(); !bytes.Equal(got, bytes.Repeat([]byte("err\n"), 200)) || pw.PID() != 42 {
		t.Errorf("stderr: %d bytes, pid %d", len(got), pw.PID())
	}
}
