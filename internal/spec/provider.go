package spec

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// implicitProvider is the provider templates use when a lab declares none.
const implicitProvider = "local.default"

// decodeProviders records provider blocks. Only the labels are read here:
// the body is kept for the provider's own schema (phase two).
func (l *loader) decodeProviders(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if len(blocks) == 0 {
		l.lab.Providers[implicitProvider] = &Provider{Type: "local", Name: "default", Body: hcl.EmptyBody()}
		return nil
	}
	for _, b := range blocks {
		p := &Provider{Type: b.Labels[0], Name: b.Labels[1], Body: b.Body, DeclRange: b.DefRange}
		if d := checkName(b, 0, "provider type", blockNameRe, blockNameRule); d != nil {
			diags = append(diags, d)
			continue
		}
		if d := checkName(b, 1, "provider", blockNameRe, blockNameRule); d != nil {
			diags = append(diags, d)
			continue
		}
		if l.opts.KnownProviders != nil && !slices.Contains(l.opts.KnownProviders, p.Type) {
			diags = append(diags, errorf(b.LabelRanges[0], "Unknown provider type",
				"There is no provider of type %q; known types: %s.", p.Type, joinNames(l.opts.KnownProviders)))
			continue
		}
		if prev := l.lab.Providers[p.Key()]; prev != nil {
			diags = append(diags, errorf(b.DefRange, "Duplicate provider",
				"A provider %q %q was already declared at %s.", p.Type, p.Name, declaredAt(prev.DeclRange)))
			continue
		}
		l.lab.Providers[p.Key()] = p
	}
	return diags
}
