package report

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestIPVersions: a report of IPv4 runs only says nothing of IP versions
// (as before ip_version); one with IPv6 runs names each version once,
// IPv4 included, and skips groups without a successful run.
func TestIPVersions(t *testing.T) {
	v4 := results.CellGroup{N: 2}
	v6 := results.CellGroup{N: 1, IPVersions: []string{"IPv6 fd00::2 -> fd00::1"}}
	failed := results.CellGroup{}
	if got := ipVersions([]results.CellGroup{v4, failed}); got != nil {
		t.Errorf("IPv4 only: %q", got)
	}
	if got := strings.Join(ipVersions([]results.CellGroup{failed, v4, v6, v4}), ", "); got != "IPv4, IPv6 fd00::2 -> fd00::1" {
		t.Errorf("mixed: %q", got)
	}
}
