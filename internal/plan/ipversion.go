package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/providers"
)

// ipv6Pair reports whether an experiment using the pair runs over IPv6
// (ip_version 6 or "dual"): its links are then addressed with IPv6 too,
// for every experiment, since a pair's machines serve them all.
func ipv6Pair(lab *spec.Lab, pair string) bool {
	return ipv6Experiment(lab, pair) != nil
}

// ipv6Experiment is the first experiment using pair over IPv6, nil if none.
func ipv6Experiment(lab *spec.Lab, pair string) *spec.Experiment {
	if lab == nil {
		return nil
	}
	for _, e := range lab.Experiments {
		if e.IPVersion == spec.IPv4 {
			continue
		}
		for _, p := range e.Pairs {
			if p == pair {
				return e
			}
		}
	}
	return nil
}

// ipVersionNote is what a run line of the plan adds for its IP version.
func ipVersionNote(v string) string {
	switch v {
	case spec.IPv6:
		return "  IPv6"
	case spec.IPDual:
		return "  IPv6 (dual stack)"
	}
	return ""
}

// checkGroupIPv6 refuses an IPv6 link on a back end that cannot address
// one, at the ip_version of the experiment asking (a saved plan has no
// lab: then the diagnostic names the pair only).
func checkGroupIPv6(g *Group, c providers.Capabilities, lab *spec.Lab, add func(*hcl.Diagnostic)) {
	if !g.Link.IPv6 || c.IPv6 {
		return
	}
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "IPv6 not supported",
		Detail: fmt.Sprintf("pair %s, provider %s: this back end does not address its links with IPv6 yet (the local back end does); remove ip_version or use a local pair.",
			g.Pair, g.providerNames())}
	if e := ipv6Experiment(lab, g.Pair); e != nil {
		r := e.IPVersionRange
		d.Subject = &r
	}
	add(d)
}
