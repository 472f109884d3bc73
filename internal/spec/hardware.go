package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// hardwareAttrs are the attributes of an experiment's hardware block: a
// per-cell override of the pair's hardware (changing the hardware shape).
var hardwareAttrs = map[string]func(c *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic{
	"vcpu": func(c *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		n, d := toInt(v, a.Expr.Range(), "vcpu", 1, maxVCPU)
		if d == nil {
			c.vcpu = n
		}
		return d
	},
	"memory": func(c *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		n, d := parseMemoryMiB(v, a.Expr.Range(), "memory")
		if d == nil {
			c.memoryMiB = n
		}
		return d
	},
}

var hardwareSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "memory"}, {Name: "vcpu"}},
}
