package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
)

// A connect that ran out of time is told from a refused one through the
// wrapping Dial adds; the refused one still matches ECONNREFUSED.
func TestConnectErrorTimeout(t *testing.T) {
	// A real dial timeout: a deadline already passed.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, timedOut := (&net.Dialer{}).DialContext(ctx, "tcp", "127.0.0.1:9")
	if timedOut == nil {
		t.Fatal("dial with a past deadline succeeded")
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name       string
		err        error
		timeout    bool
		refusedToo bool
	}{
		{"timed out", timedOut, true, false},
		{"refused", refused, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("guest: connect 10.0.0.1:22: %w", &connectError{tc.err})
			var ce *connectError
			if !errors.As(err, &ce) || ce.timeout() != tc.timeout {
				t.Errorf("timeout() = %v, want %v (%v)", ce != nil && ce.timeout(), tc.timeout, err)
			}
			if errors.Is(err, syscall.ECONNREFUSED) != tc.refusedToo {
				t.Errorf("errors.Is(ECONNREFUSED) = %v, want %v", !tc.refusedToo, tc.refusedToo)
			}
			if err.Error() != "guest: connect 10.0.0.1:22: "+tc.err.Error() {
				t.Errorf("text changed: %q", err.Error())
			}
		})
	}
}
