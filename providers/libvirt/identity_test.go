package libvirt

import (
	"bytes"
	"context"
	"strings"
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
			cw := &ctxWriter{ctx: ctx, w: &seen}
			n, err := cw.Write([]byte("abc"))
			if n != 3 || err != nil {
				t.Errorf("Write = %d, %v; want 3, nil", n, err)
			}
			if seen.String() != tc.wantSeen || cw.n != uint64(len(tc.wantSeen)) {
				t.Errorf("written %q (counted %d), want %q", seen.String(), cw.n, tc.wantSeen)
			}
		})
	}
}

// A download that brought nothing, or less than the volume, is no
// identity: never the SHA-256 of empty input (e3b0c442…).
func TestCheckDownload(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, size uint64
		want      string // "" for no error
	}{
		{"whole volume", 1 << 20, 1 << 20, ""},
		{"size unknown (old daemon), data read", 4096, 0, ""},
		{"nothing read", 0, 1 << 20, "brought no data"},
		{"nothing read, size unknown", 0, 0, "brought no data"},
		{"short read", 4096, 1 << 20, "brought 4096 of its 1048576 bytes"},
	} {
		err := checkDownload("base.qcow2", tc.got, tc.size)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "identity is unknown")):
			t.Errorf("%s: err %v, want one saying %q and that the identity is unknown", tc.name, err, tc.want)
		}
	}
}
