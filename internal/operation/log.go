package operation

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/lab-bench/lab/internal/redact"
	"github.com/lab-bench/lab/providers"
)

// Logging: LAB_LOG=debug logs every provider call and guest command with
// its timing and outcome; LAB_LOG=trace adds back ends' step-by-step
// detail. The log goes to stderr, or appended to LAB_LOG_PATH. Known
// secrets (sensitive variables' values, GOVC_PASSWORD) are replaced by
// "(sensitive value)" in every record, whatever the attribute's kind.

// NewLogger returns the logger LAB_LOG and LAB_LOG_PATH in env ask for,
// nil when logging is off. Every record it writes passes through secrets.
func NewLogger(env []string, stderr io.Writer, secrets *redact.Set) (*slog.Logger, error) {
	var level slog.Level
	switch strings.ToLower(EnvValue(env, "LAB_LOG")) {
	case "", "off":
		return nil, nil
	case "debug":
		level = slog.LevelDebug
	case "trace":
		level = providers.LevelTrace
	default:
		return nil, fmt.Errorf("LAB_LOG=%q: use debug or trace", EnvValue(env, "LAB_LOG"))
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
