package libvirt

import (
	"bytes"
	"context"
	"testing"
)

// A download's writer never fails, also once the context is done: it then
// drains without writing (a failing writer wedges go-libvirt's connection).
func TestCtxWriterDrainsAfterCancel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cancel   bool
		wantSeen string
	}{
		{"live context: written", false, "abc"},
		{"ended context: drained, not written, no error", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			var seen bytes.Buffer
			n, err := ctxWriter{ctx, &seen}.Write([]byte("abc"))
			if n != 3 || err != nil {
				t.Errorf("Write = %d, %v; want 3, nil", n, err)
			}
			if seen.String() != tc.wantSeen {
				t.Errorf("written %q, want %q", seen.String(), tc.wantSeen)
			}
		})
	}
}
