package guest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"
)

// Traced returns t logging every command to log at debug level: the guest,
// the command as a person would type it, how long it took, its exit status
// and, on failure, the error. Standard input and output are not logged.
func Traced(t Transport, log *slog.Logger) Transport {
	return tracedTransport{t: t, log: log}
}

type tracedTransport struct {
	t   Transport
	log *slog.Logger
}

func (tt tracedTransport) Run(ctx context.Context, c Cmd) (Result, error) {
	start := time.Now()
	res, err := tt.t.Run(ctx, c)
	attrs := []any{"guest", tt.t.Name(), "cmd", c.String(), "elapsed", time.Since(start).Round(time.Microsecond), "exit", res.ExitCode}
	var ce *CommandError
	if errors.As(err, &ce) {
		attrs[len(attrs)-1] = ce.ExitCode
	}
	if err != nil {
		attrs = append(attrs, "err", err.Error())
	}
	tt.log.DebugContext(ctx, "guest command", attrs...)
	return res, err
}

func (tt tracedTransport) Upload(ctx context.Context, path string, r io.Reader) error {
	start := time.Now()
	err := tt.t.Upload(ctx, path, r)
	attrs := []any{"guest", tt.t.Name(), "path", path, "elapsed", time.Since(start).Round(time.Microsecond)}
	if err != nil {
		attrs = append(attrs, "err", err.Error())
	}
	tt.log.DebugContext(ctx, "guest upload", attrs...)
	return err
}

func (tt tracedTransport) Name() string { return tt.t.Name() }
func (tt tracedTransport) Close() error { return tt.t.Close() }

// RunsConcurrently is the traced transport's (Concurrent).
func (tt tracedTransport) RunsConcurrently() bool { return Concurrent(tt.t) }
