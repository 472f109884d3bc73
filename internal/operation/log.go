package operation

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/redact"
	"github.com/lab-bench/lab/providers"
)

// Logging, as Terraform's TF_LOG: LAB_LOG=error logs an apply's or a
// destroy's errors (the error event, failed runs); warn adds its warnings
// and failed provider calls; info adds every progress event (machines
// created and deleted, runs started and finished); debug adds every
// provider call and guest command with its timing and outcome; trace adds
// back ends' step-by-step detail. The log goes to stderr, or appended to
// LAB_LOG_PATH. Known
// secrets (sensitive variables' values, GOVC_PASSWORD) are replaced by
// "(sensitive value)" in every record, whatever the attribute's kind.

// NewLogger returns the logger LAB_LOG and LAB_LOG_PATH in env ask for,
// nil when logging is off. Every record it writes passes through secrets.
func NewLogger(env []string, stderr io.Writer, secrets *redact.Set) (*slog.Logger, error) {
	var level slog.Level
	switch strings.ToLower(EnvValue(env, "LAB_LOG")) {
	case "", "off":
		return nil, nil
	case "error":
		level = slog.LevelError
	case "warn", "warning":
		level = slog.LevelWarn
	case "info":
		level = slog.LevelInfo
	case "debug":
		level = slog.LevelDebug
	case "trace":
		level = providers.LevelTrace
	default:
		return nil, fmt.Errorf("LAB_LOG=%q: use error, warn, info, debug or trace (or off)", EnvValue(env, "LAB_LOG"))
	}
	w := stderr
	if path := EnvValue(env, "LAB_LOG_PATH"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("LAB_LOG_PATH: %w", err)
		}
		w = f
	}
	// The text handler writes each record in one Write, so the redacting
	// writer sees every value whole: messages, strings, errors, any kind.
	h := slog.NewTextHandler(secrets.Writer(w), &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.LevelKey && a.Value.Any() == providers.LevelTrace {
			return slog.String(slog.LevelKey, "TRACE")
		}
		return a
	}})
	return slog.New(h), nil
}

// LoggedView returns v that also logs every event to log (nil: v itself):
// errors and failed runs at error level, warnings at warn, everything else
// at info, with the event's address, cell and message.
func LoggedView(v engine.View, log *slog.Logger) engine.View {
	if log == nil {
		return v
	}
	return engine.ViewFunc(func(e engine.Event) {
		level := slog.LevelInfo
		switch e.Type {
		case engine.EvError, engine.EvRunFailed:
			level = slog.LevelError
		case engine.EvWarning:
			level = slog.LevelWarn
		}
		attrs := []any{"event", e.Type}
		for _, kv := range [][2]string{{"address", e.Address}, {"experiment", e.Experiment}, {"pair", e.Pair}, {"cell", e.Cell}, {"message", e.Message}} {
			if kv[1] != "" {
				attrs = append(attrs, kv[0], kv[1])
			}
		}
		if e.Repeat > 0 {
			attrs = append(attrs, "repeat", e.Repeat)
		}
		if e.Warmup { // a warm-up counts its repeats apart from the measured ones
			attrs = append(attrs, "warmup", true)
		}
		if e.Elapsed > 0 {
			attrs = append(attrs, "elapsed", e.Elapsed.Round(time.Millisecond))
		}
		log.Log(context.Background(), level, "lab event", attrs...)
		if v != nil {
			v.Event(e)
		}
	})
}
