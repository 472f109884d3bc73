package guest

import (
	"context"
	"time"
)

// SharedFileReader is a Transport whose guest sees some of this host's
// files exactly as this process does (a network namespace on this machine:
// it shares the host's filesystem and its /proc/stat). ReadShared returns
// such a file's content with ok true; ok false means the transport does
// not serve path so, and the caller runs its command as usual. Reading in
// process saves a command — one process, under load tens of milliseconds
// — where a run samples CPU times on each end before and after it.
type SharedFileReader interface {
	ReadShared(ctx context.Context, path string) (data []byte, ok bool, err error)
}

// ReadShared is t's ReadShared when t is a SharedFileReader; ok false
// otherwise.
func ReadShared(ctx context.Context, t Transport, path string) ([]byte, bool, error) {
	if r, can := t.(SharedFileReader); can {
		return r.ReadShared(ctx, path)
	}
	return nil, false, nil
}

// ReadShared is the traced transport's, logged as a command would be.
func (tt tracedTransport) ReadShared(ctx context.Context, path string) ([]byte, bool, error) {
	start := time.Now()
	data, ok, err := ReadShared(ctx, tt.t, path)
	if ok {
		attrs := []any{"guest", tt.t.Name(), "path", path, "elapsed", time.Since(start).Round(time.Microsecond)}
		if err != nil {
			attrs = append(attrs, "err", err.Error())
		}
		tt.log.DebugContext(ctx, "guest shared file read", attrs...)
	}
	return data, ok, err
}
