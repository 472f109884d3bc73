package freebsd

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// siftr(4) logs per-packet TCP state (cwnd, ssthresh, srtt, …) to a file —
// seed 003's traces. This is the seam for an optional capture around a
// run: StartSiftr before the benchmark, StopSiftr after it, then fetch
// the log. The engine does not call it yet.

// siftrPathRE: an absolute path of plain characters.
var siftrPathRE = regexp.MustCompile(`^/[A-Za-z0-9_./-]{1,200}$`)

// StartSiftr loads siftr, points its log at logfile and enables it.
func StartSiftr(ctx context.Context, t guest.Transport, logfile string) error {
	if !siftrPathRE.MatchString(logfile) || strings.Contains(logfile, "..") || strings.HasSuffix(logfile, "/") {
		return fmt.Errorf("%s: siftr log file %q: want an absolute path of letters, digits and _ . / -", t.Name(), logfile)
	}
	for _, argv := range [][]string{
		{"kldload", "-n", "siftr"},
		{"sysctl", "net.inet.siftr.logfile=" + logfile},
		{"sysctl", "net.inet.siftr.enabled=1"},
	} {
		if _, err := run(ctx, t, argv...); err != nil {
			return err
		}
	}
	return nil
}

// StopSiftr disables siftr, which flushes and closes its log.
func StopSiftr(ctx context.Context, t guest.Transport) error {
	_, err := run(ctx, t, "sysctl", "net.inet.siftr.enabled=0")
	return err
}
