package spec

import (
	"maps"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bench"
)

// benchKind is one benchmark block type (iperf3; iperf2 or netperf are a
// new file that registers another kind).
type benchKind struct {
	// Tool is the block type and bench.Params.Tool.
	Tool string
	// Attrs apply each attribute's value to the parameters.
	Attrs map[string]benchSetter
	// Defaults fills the parameters before any attribute is applied.
	Defaults func(p *bench.Params)
	// Checks validate attributes together once they are applied.
	Checks []benchCheck
}

// benchSetter applies one benchmark attribute's value.
type benchSetter func(p *bench.Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic

// benchCheck validates several attributes together (duration > omit).
type benchCheck struct {
	Attrs []string
	// Check reports a problem with p; attrs holds the written attributes
	// of the block (by name), so the diagnostic can point at one.
	Check func(p *bench.Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic
}

// benchKinds are the registered benchmark block types by name.
var benchKinds = map[string]*benchKind{}

func registerBench(k *benchKind) { benchKinds[k.Tool] = k }

// schema is the block's body schema, from its attributes.
func (k *benchKind) schema() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, n := range slices.Sorted(maps.Keys(k.Attrs)) {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: n})
	}
	return s
}

// Shared setters for benchmark attributes.

func durationSetter(set func(p *bench.Params, d time.Duration)) benchSetter {
	return func(p *bench.Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		s, d := toString(v, a.Expr.Range(), a.Name)
		if d != nil {
			return d
		}
		dur, err := time.ParseDuration(s)
		if err != nil || dur < 0 || dur > 24*time.Hour || dur%time.Second != 0 {
			return errorf(a.Expr.Range(), "Invalid duration",
				"%s must be a whole number of seconds written like \"10s\" or \"1m30s\" (at most 24h), got %q.",
				a.Name, truncate(s, 40))
		}
		set(p, dur)
		return nil
	}
}

func intSetter(lo, hi int, set func(p *bench.Params, n int)) benchSetter {
	return func(p *bench.Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		n, d := toInt(v, a.Expr.Range(), a.Name, lo, hi)
		if d == nil {
			set(p, n)
		}
		return d
	}
}

func boolSetter(set func(p *bench.Params, b bool)) benchSetter {
	return func(p *bench.Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		b, d := toBool(v, a.Expr.Range(), a.Name)
		if d == nil {
			set(p, b)
		}
		return d
	}
}

// patternSetter accepts strings matching re; rule explains it.
func patternSetter(re interface{ MatchString(string) bool }, summary, rule string, set func(p *bench.Params, s string)) benchSetter {
	return func(p *bench.Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		s, d := toString(v, a.Expr.Range(), a.Name)
		if d != nil {
			return d
		}
		if !re.MatchString(s) {
			return errorf(a.Expr.Range(), summary, "%q is not valid for %s: %s.", truncate(s, 40), a.Name, rule)
		}
		set(p, s)
		return nil
	}
}

func ccSetter(set func(p *bench.Params, s string)) benchSetter {
	return func(p *bench.Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		s, d := toString(v, a.Expr.Range(), a.Name)
		if d == nil {
			d = checkCC(s, a.Expr.Range())
		}
		if d == nil {
			set(p, s)
		}
		return d
	}
}
