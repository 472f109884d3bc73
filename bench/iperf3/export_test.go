package iperf3

import (
	"context"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Version is the first line of `iperf3 --version` on a guest
// ("iperf 3.12 (cJSON 1.7.15)"), for provenance.
func Version(ctx context.Context, t guest.Transport) (string, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: versionArgv})
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(res.Stdout), "\n")
	return strings.TrimSpace(line), nil
}
