package bench

import (
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/internal/hclvalue"
)

// Block is a tool's benchmark block in a spec (`netperf { test = "TCP_RR" }`):
// the attributes it accepts, the parameters they start from, and the
// checks of several attributes together. The spec loader reads the block's
// body against Schema (phase two of decoding, as a provider's body is read
// by the provider) and applies each attribute per matrix cell.
type Block struct {
	// Attrs apply each attribute's value to the parameters, by name.
	Attrs map[string]Attr
	// Defaults fills the parameters before any attribute is applied
	// (Params.Tool is already set).
	Defaults func(p *Params)
	// Checks validate attributes together once they are applied.
	Checks []Check
}

// Attr applies one attribute's value to p, or returns a diagnostic on
// a's expression saying why the value is refused. v is never null (a null
// value leaves the default) and never unknown.
type Attr func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic

// Check validates several attributes together (iperf3's duration and omit).
type Check struct {
	// Attrs are the attributes the check reads: the spec evaluates it once
	// per combination of the matrix values those attributes read.
	Attrs []string
	// Check reports a problem with p; attrs holds the written attributes
	// of the block (by name), so the diagnostic can point at one, and block
	// is the block's header, for a problem with an attribute left out.
	Check func(p *Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic
}

// Schema is the block's body schema, from its attributes.
func (b *Block) Schema() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, n := range slices.Sorted(maps.Keys(b.Attrs)) {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: n})
	}
	return s
}

// Decode reads one block body with no matrix: the defaults, then every
// attribute evaluated in ctx (nil: literals only), then the checks. The
// spec loader does the same per cell; Decode is what a tool's conformance
// test (bench/benchtest) calls.
func (b *Block) Decode(tool string, body hcl.Body, block hcl.Range, ctx *hcl.EvalContext) (Params, hcl.Diagnostics) {
	p := Params{Tool: tool}
	b.Defaults(&p)
	content, diags := body.Content(b.Schema())
	for _, n := range slices.Sorted(maps.Keys(content.Attributes)) {
		a := content.Attributes[n]
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() || v.IsNull() || !v.IsWhollyKnown() {
			continue
		}
		if d := b.Attrs[n](&p, v, a); d != nil {
			diags = append(diags, d)
		}
	}
	if diags.HasErrors() {
		return p, diags
	}
	for _, c := range b.Checks {
		if d := c.Check(&p, content.Attributes, block); d != nil {
			diags = append(diags, d)
		}
	}
	return p, diags
}

// Patterns for tool attributes whose values reach a command line.
var (
	// LengthRe: a byte count with an optional K, M or G suffix, at least
	// 1 (iperf3 -l "128K", netperf -m/-s/-S; a length of 0 validated, then
	// failed at apply).
	LengthRe = regexp.MustCompile(`^[1-9][0-9]{0,11}[KMG]?$`)
	// BitrateRe: bits per second with an optional suffix (iperf3 -b "1G", "2.5G").
	BitrateRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[KMG]?$`)
	// ccRe: a TCP congestion control algorithm (cubic, bbr, new_reno).
	ccRe = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)
)

// The attribute kinds tools' blocks share. Each converts the value with
// internal/hclvalue, so a wrong type is refused in the same words as
// anywhere else in a spec, and calls set with the Go value.

// DurationAttr accepts a whole number of seconds up to 24h ("10s", "1m30s"),
// 0 included (iperf3's omit).
func DurationAttr(set func(p *Params, d time.Duration)) Attr {
	return func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		dur, d := duration(v, a)
		if d == nil {
			set(p, dur)
		}
		return d
	}
}

// MeasuredDurationAttr accepts the time a benchmark measures for: as
// DurationAttr, but at least 1s, since no tool measures zero seconds.
// zero says what the tool does when given 0 ("iperf3 -t 0 runs until
// stopped"), for the diagnostic.
func MeasuredDurationAttr(zero string, set func(p *Params, d time.Duration)) Attr {
	return func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		dur, d := duration(v, a)
		if d == nil && dur == 0 {
			d = hclvalue.Errorf(a.Expr.Range(), "Invalid duration",
				"%s is how long the benchmark runs and must be at least 1s (%s).", a.Name, zero)
		}
		if d == nil {
			set(p, dur)
		}
		return d
	}
}

// duration converts an attribute's value to a whole number of seconds
// from 0 to 24h.
func duration(v cty.Value, a *hcl.Attribute) (time.Duration, *hcl.Diagnostic) {
	s, d := hclvalue.String(v, a.Expr.Range(), a.Name)
	if d != nil {
		return 0, d
	}
	dur, err := time.ParseDuration(s)
	if err != nil || dur < 0 || dur > 24*time.Hour || dur%time.Second != 0 {
		return 0, hclvalue.Errorf(a.Expr.Range(), "Invalid duration",
			"%s must be a whole number of seconds written like \"10s\" or \"1m30s\" (at most 24h), got %q.",
			a.Name, hclvalue.Truncate(s, 40))
	}
	return dur, nil
}

// IntAttr accepts a whole number within [lo, hi].
func IntAttr(lo, hi int, set func(p *Params, n int)) Attr {
	return func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		n, d := hclvalue.Int(v, a.Expr.Range(), a.Name, lo, hi)
		if d == nil {
			set(p, n)
		}
		return d
	}
}

// BoolAttr accepts a bool.
func BoolAttr(set func(p *Params, b bool)) Attr {
	return func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		b, d := hclvalue.Bool(v, a.Expr.Range(), a.Name)
		if d == nil {
			set(p, b)
		}
		return d
	}
}

// Matcher is what PatternAttr checks a string with (a *regexp.Regexp, or
// a type whose MatchString parses the value).
type Matcher interface{ MatchString(string) bool }

// PatternAttr accepts strings re matches; summary and rule make the
// diagnostic for one it does not ("Invalid size", "write a number of bytes").
func PatternAttr(re Matcher, summary, rule string, set func(p *Params, s string)) Attr {
	return func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		s, d := hclvalue.String(v, a.Expr.Range(), a.Name)
		if d != nil {
			return d
		}
		if !re.MatchString(s) {
			return hclvalue.Errorf(a.Expr.Range(), summary, "%q is not valid for %s: %s.", hclvalue.Truncate(s, 40), a.Name, rule)
		}
		set(p, s)
		return nil
	}
}

// CongestionControlAttr accepts a congestion control algorithm's name.
func CongestionControlAttr(set func(p *Params, s string)) Attr {
	return func(p *Params, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		s, d := hclvalue.String(v, a.Expr.Range(), a.Name)
		if d == nil {
			d = CheckCongestionControl(s, a.Expr.Range())
		}
		if d == nil {
			set(p, s)
		}
		return d
	}
}

// CheckCongestionControl validates a congestion control algorithm name,
// as a benchmark block or a guest end sets it.
func CheckCongestionControl(s string, rng hcl.Range) *hcl.Diagnostic {
	if ccRe.MatchString(s) {
		return nil
	}
	return hclvalue.Errorf(rng, "Invalid congestion control",
		"%q is not a congestion control algorithm name: use 1 to 32 lower-case letters, digits and underscores (cubic, bbr, new_reno).",
		hclvalue.Truncate(s, 40))
}
