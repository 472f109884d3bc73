package engine

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/machine"
)

// TestBenchAddrs: an IPv4 run goes between the ends' Addr and records no
// addresses (its record keeps its format); a run over IPv6 goes between
// their Addr6 and records them with the IP version; an end without an
// IPv6 address fails the run, naming it.
func TestBenchAddrs(t *testing.T) {
	mk := func(addr, addr6 string) end {
		return end{in: machine.Instance{Address: "pair.p." + addr, Endpoint: &machine.Endpoint{Addr: addr, Addr6: addr6}}}
	}
	s, c := mk("198.18.0.1", "fd00:1::1"), mk("198.18.0.2", "fd00:1::2")
	var prov results.Provenance
	if a, b, err := benchAddrs(s, c, bench.Params{}, &prov); err != nil || a != "198.18.0.1" || b != "198.18.0.2" || prov.IPVersion+prov.ServerAddr+prov.ClientAddr != "" {
		t.Errorf("IPv4: %s %s %v %+v", a, b, err, prov)
	}
	if a, b, err := benchAddrs(s, c, bench.Params{IPVersion: bench.IPDual}, &prov); err != nil || a != "fd00:1::1" || b != "fd00:1::2" ||
		prov.IPVersion != "dual" || prov.ServerAddr != "fd00:1::1" || prov.ClientAddr != "fd00:1::2" {
		t.Errorf("dual: %s %s %v %+v", a, b, err, prov)
	}
	if _, _, err := benchAddrs(s, mk("198.18.0.2", ""), bench.Params{IPVersion: bench.IPv6}, &results.Provenance{}); err == nil ||
		!strings.Contains(err.Error(), "pair.p.198.18.0.2 has no IPv6 address") {
		t.Errorf("no IPv6 address: %v", err)
	}
}
