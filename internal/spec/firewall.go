package spec

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/guest"
)

// Ruleset is one firewall ruleset an experiment asks for, with the
// expression it is written in.
type Ruleset struct {
	Body string
	Expr hcl.Expression
	// Language is the firewall language Body was checked in ("nftables",
	// "pf").
	Language string
}

// At is where byte off of the ruleset is written (the expression when it
// is not written literally).
func (r Ruleset) At(off int) hcl.Range { return rulesetRange(r.Expr, r.Body, off) }

// Rulesets lists the distinct firewall rulesets of the lab's experiments
// (each with the language of the ends it is set on), in the order written: each firewall attribute evaluated for every
// combination of the matrix values it reads (up to maxCheckCombos).
func (l *Lab) Rulesets() []Ruleset {
	var out []Ruleset
	seen := map[string]bool{}
	for _, e := range l.Experiments {
		ce := e.eval
		if ce == nil {
			continue
		}
		for _, a := range ce.attrs {
			if a.attr.Name != "firewall" {
				continue
			}
			ce.eachCombo(a.dims, func(matrix map[string]cty.Value, _ []int) bool {
				c, diags := ce.evalCell(matrix, []*cellAttr{a}, nil)
				if diags.HasErrors() {
					return true
				}
				for _, end := range c.ends {
					key := fmt.Sprintf("%s\x00%s\x00%s", a.attr.Expr.Range(), end.fwLanguage, end.s.Firewall)
					if end.s.Firewall != "" && end.fwLanguage != "" && !seen[key] {
						seen[key] = true
						out = append(out, Ruleset{Body: end.s.Firewall, Expr: a.attr.Expr, Language: end.fwLanguage})
					}
				}
				return true
			})
		}
	}
	return out
}

// MaxNftChecks bounds how many distinct rulesets CheckRulesets gives to
// nft, so that a matrix of rulesets does not make validate slow.
const MaxNftChecks = 32

// CheckRulesets has this host's nft check every firewall ruleset of the
// lab, as the Linux driver has the guest's nft check it before loading
// it (guest.Firewall.CheckOnHost, the Linux driver's `nft -c` in a
// network namespace of its own). A ruleset nft cannot parse is an error at the place nft names; one
// the host's kernel refuses (an object or module it lacks, which the
// guest's kernel may have) is a warning, and so is a ruleset that could
// not be checked (lab not root, no nft), once. A ruleset in a language
// this host has no parser for (pf) is left to its guest, which checks it
// at apply before anything changes.
func (l *Lab) CheckRulesets(ctx context.Context) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var all []Ruleset
	for _, r := range l.Rulesets() {
		if r.Language == firewallLanguage {
			all = append(all, r)
		}
	}
	if len(all) > MaxNftChecks {
		rng := all[MaxNftChecks].Expr.Range()
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Firewall rulesets not all syntax-checked",
			Detail: fmt.Sprintf("The lab has %d distinct firewall rulesets; this host's nft checked the first %d (about 20 ms each). The guests' nft checks every one at apply, before anything changes.",
				len(all), MaxNftChecks), Subject: &rng})
		all = all[:MaxNftChecks]
	}
	fw, ok := guest.FirewallFor(firewallLanguage)
	if !ok {
		return diags
	}
	for _, r := range all {
		err := fw.CheckOnHost(ctx, r.Body)
		var unchecked *guest.FirewallUncheckedError
		var kernel *guest.FirewallKernelError
		var refused *guest.RulesetError
		switch {
		case err == nil:
		case errors.As(err, &unchecked):
			rng := r.Expr.Range()
			return append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Firewall ruleset not syntax-checked",
				Detail: fmt.Sprintf("%s. Its guest's nft checks it at apply, before anything changes.", err), Subject: &rng})
		case errors.As(err, &kernel):
			rng := r.At(kernel.Offset)
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Firewall ruleset refused by this host's kernel",
				Detail: fmt.Sprintf("%s (line %d, column %d of the ruleset). This host's nft parsed it but its kernel refused it: a chain, set or helper it names does not exist, or the kernel lacks a module the guest's may have. Its guest's nft checks it again at apply.",
					kernel.Msg, kernel.Line, kernel.Column), Subject: &rng})
		case errors.As(err, &refused):
			rng := r.At(refused.Offset)
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid firewall ruleset",
				Detail: fmt.Sprintf("%s (line %d, column %d of the ruleset), checked with this host's nft in a network namespace of its own. A ruleset is the body of lab's table inet %s.",
					refused.Msg, refused.Line, refused.Column, fw.Table), Subject: &rng})
		}
	}
	return diags
}
