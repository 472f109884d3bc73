package spec

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
)

// backgroundBlock is the experiment's block of a load that runs while the
// measured benchmark runs (kept beside its rules, as concurrentSchema).
var backgroundBlock = []hcl.BlockHeaderSchema{{Type: "background"}}

// BackgroundLead is how much longer a background load runs than the
// measured benchmark (omit included) when its block sets no duration:
// the load starts first, and the measured client starts once its own
// server listens and the load's client has started.
const BackgroundLead = 3 * time.Second

// Background is an experiment's background { … } block: one benchmark run
// on the same pair, started before the measured benchmark and running
// through it (latency under load: flent's RRUL, seed 001's "while the
// link is loaded"). Its attributes are the same in every cell.
type Background struct {
	Params bench.Params
	// DurationSet says the block wrote its duration; otherwise each
	// cell's load lasts the measured benchmark's omit + duration +
	// BackgroundLead.
	DurationSet bool
	DeclRange   hcl.Range
	// durationRange is where the duration is written.
	durationRange hcl.Range
}

// decodeBackground reads background { iperf3 { … } }: exactly one
// benchmark block, its attributes evaluated once (variables, no matrix).
func (l *loader) decodeBackground(e *Experiment, content *hcl.BodyContent) hcl.Diagnostics {
	blk, diags := singleBlock(content.Blocks.OfType("background"), "background")
	if blk == nil {
		return diags
	}
	schema := &hcl.BodySchema{}
	for _, n := range bench.Names() {
		schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: n})
	}
	c, d := blk.Body.Content(schema)
	diags = append(diags, d...)
	b, d := singleBlock(c.Blocks, "benchmark")
	diags = append(diags, d...)
	if b == nil {
		return append(diags, errorf(blk.DefRange, "Empty background block",
			"A background block holds one benchmark block, the load run while the measured benchmark runs: background { %s { … } }.",
			joinNames(bench.Names())))
	}
	tool := benchTool(b.Type)
	p := bench.Params{Tool: tool.Name}
	tool.Block.Defaults(&p)
	bc, d := b.Body.Content(tool.Block.Schema())
	diags = append(diags, d...)
	for _, n := range slices.Sorted(maps.Keys(bc.Attributes)) {
		a := bc.Attributes[n]
		v, d := l.evalValue(a)
		diags = append(diags, d...)
		if d.HasErrors() || v.IsNull() {
			continue
		}
		if d := tool.Block.Attrs[n](&p, v, a); d != nil {
			diags = append(diags, d)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	for _, chk := range tool.Block.Checks {
		if d := chk.Check(&p, bc.Attributes, b.DefRange); d != nil {
			diags = append(diags, d)
		}
	}
	if p.Loopback {
		diags = append(diags, errorf(bc.Attributes["loopback"].Expr.Range(), "Loopback background",
			"A background load runs over the pair's link, as the measured benchmark does; loopback = true would load the server end's loopback instead."))
	}
	bg := &Background{Params: p, DeclRange: b.DefRange}
	if a := bc.Attributes["duration"]; a != nil {
		bg.DurationSet, bg.durationRange = true, a.Expr.Range()
	}
	e.Background = bg
	return diags
}

// forCell is the load's parameters for a cell whose measured benchmark is
// m: a load without its own duration lasts m's omit + duration +
// BackgroundLead; one with a duration must last at least m's omit +
// duration, or the measurement's end would run unloaded.
func (bg *Background) forCell(m bench.Params) (*bench.Params, *hcl.Diagnostic) {
	p := bg.Params
	need := m.Omit + m.Duration
	if !bg.DurationSet {
		p.Duration = need + BackgroundLead - p.Omit
		return &p, nil
	}
	if p.Omit+p.Duration < need {
		return nil, errorf(bg.durationRange, "Background load ends before the measurement",
			"The background load runs %s (omit included), but the measured benchmark runs %s: its end would run unloaded. Make the load at least %s, or leave its duration out (lab then runs it %s longer than the measurement).",
			p.Omit+p.Duration, need, need, BackgroundLead)
	}
	return &p, nil
}

// String names a background load for messages ("iperf3 -P 4, 13s").
func (bg *Background) String() string {
	s := bg.Params.Tool
	if bg.Params.Parallel > 1 {
		s += fmt.Sprintf(" -P %d", bg.Params.Parallel)
	}
	return s
}
