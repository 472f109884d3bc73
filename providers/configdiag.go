package providers

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// ConfigDiags collects the diagnostics a provider's Configure reports on
// its block, each at the value of the attribute it is about or, for the
// block as a whole (or an attribute the block does not set), at the
// block's end — so that every one names the spec's file and line. Every
// back end reports through one (hosts' errors are about its server and
// client blocks: NewBlockConfigDiags).
type ConfigDiags struct {
	body  hcl.Body
	diags hcl.Diagnostics
	// header, when set, is where an error about the block itself or an
	// attribute it does not set goes instead of the block's end.
	header *hcl.Range
}

// NewConfigDiags starts the diagnostics of the provider block body.
func NewConfigDiags(body hcl.Body) *ConfigDiags { return &ConfigDiags{body: body} }

// NewBlockConfigDiags starts the diagnostics of a block nested in a
// provider block (hosts' server and client): an error about the block or
// an attribute it does not set points at the block's header, which names
// the block, rather than its end.
func NewBlockConfigDiags(b *hcl.Block) *ConfigDiags {
	return &ConfigDiags{body: b.Body, header: b.DefRange.Ptr()}
}

// Errorf records an error about attribute attr of the block ("" for the
// block itself): a summary and a detail made by fmt.Sprintf.
func (c *ConfigDiags) Errorf(attr, summary, format string, a ...any) {
	c.diags = append(c.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
		Detail: fmt.Sprintf(format, a...), Subject: c.at(attr)})
}

// at is where an error about attribute attr goes.
func (c *ConfigDiags) at(attr string) *hcl.Range {
	if c.header != nil && (attr == "" || !attrSet(c.body, attr)) {
		return c.header
	}
	return AttrRange(c.body, attr)
}

// attrSet reports whether body sets attribute name.
func attrSet(body hcl.Body, name string) bool {
	content, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
	_, ok := content.Attributes[name]
	return content != nil && ok
}

// Append adds diagnostics made elsewhere (decoding, a nested block).
func (c *ConfigDiags) Append(d hcl.Diagnostics) { c.diags = append(c.diags, d...) }

// HasErrors reports whether an error was recorded.
func (c *ConfigDiags) HasErrors() bool { return c.diags.HasErrors() }

// Diags is everything recorded, in order.
func (c *ConfigDiags) Diags() hcl.Diagnostics { return c.diags }

// Unsupported records an "Unsupported argument" error at each attribute
// of remain (a schema's ",remain" body: what the block sets that the
// provider does not take), naming the provider and the arguments it takes.
func (c *ConfigDiags) Unsupported(remain hcl.Body, provider, takes string) {
	if remain == nil {
		return
	}
	attrs, d := remain.JustAttributes()
	if d.HasErrors() {
		return
	}
	for name, a := range attrs {
		c.diags = append(c.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument",
			Detail:  fmt.Sprintf("The %s provider has no argument %q (it takes: %s).", provider, name, takes),
			Subject: a.NameRange.Ptr()})
	}
}

// AttrRange is the range of attribute name's value in body; the block's
// end when name is "" or the block does not set it.
func AttrRange(body hcl.Body, name string) *hcl.Range {
	if name != "" {
		content, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
		if content != nil {
			if a, ok := content.Attributes[name]; ok {
				return a.Expr.Range().Ptr()
			}
		}
	}
	r := body.MissingItemRange()
	return &r
}
