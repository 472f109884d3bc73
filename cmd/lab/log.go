package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/lab-bench/lab/providers"
)

// Logging: LAB_LOG=debug logs every provider call and guest command with
// its timing and outcome; LAB_LOG=trace adds back ends' step-by-step
// detail. The log goes to stderr, or appended to LAB_LOG_PATH. Known
// secrets (sensitive variables' values, GOVC_PASSWORD) are replaced by
// "(sensitive)" in every message and attribute.

// newLogger returns the logger LAB_LOG and LAB_LOG_PATH in env ask for,
// nil when logging is off, and the redactor its output passes through.
func newLogger(env []string, stderr io.Writer) (*slog.Logger, *redactor, error) {
	var level slog.Level
	switch strings.ToLower(envValue(env, "LAB_LOG")) {
	case "", "off":
		return nil, nil, nil
	case "debug":
		level = slog.LevelDebug
	case "trace":
		level = providers.LevelTrace
	default:
		return nil, nil, fmt.Errorf("LAB_LOG=%q: use debug or trace", envValue(env, "LAB_LOG"))
	}
	w := stderr
	if path := envValue(env, "LAB_LOG_PATH"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("LAB_LOG_PATH: %w", err)
		}
		w = f
	}
	r := &redactor{}
	r.add(envValue(env, "GOVC_PASSWORD"))
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.LevelKey && a.Value.Any() == providers.LevelTrace {
			return slog.String(slog.LevelKey, "TRACE")
		}
		if a.Value.Kind() == slog.KindString {
			return slog.String(a.Key, r.redact(a.Value.String()))
		}
		return a
	}})
	return slog.New(redactMessages{Handler: h, r: r}), r, nil
}

// redactor replaces known secrets in log output.
type redactor struct {
	mu      sync.Mutex
	secrets []string
}

// add makes s a secret; empty and very short values are ignored (they
// would blank out ordinary words).
func (r *redactor) add(s string) {
	if r == nil || len(s) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, s)
}

func (r *redactor) redact(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.secrets {
		s = strings.ReplaceAll(s, x, "(sensitive)")
	}
	return s
}

// redactMessages redacts the message itself, which ReplaceAttr never sees.
type redactMessages struct {
	slog.Handler
	r *redactor
}

func (h redactMessages) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool { out.AddAttrs(a); return true })
	return h.Handler.Handle(ctx, out)
}

func (h redactMessages) WithAttrs(as []slog.Attr) slog.Handler {
	return redactMessages{Handler: h.Handler.WithAttrs(as), r: h.r}
}

func (h redactMessages) WithGroup(name string) slog.Handler {
	return redactMessages{Handler: h.Handler.WithGroup(name), r: h.r}
}
