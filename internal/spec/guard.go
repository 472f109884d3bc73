package spec

import (
	"fmt"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Limits on evaluating one expression. The static limits (MaxNesting,
// MaxForNesting, MaxCells, go-cty's 1024 values per range()) do not bound
// everything an expression can build ([for a in range(1024): [for b in
// range(1024): format("%09999d", b)]] asks for 10 GB): Guard watches
// the expression being evaluated and reports it, at its file, line and
// column, when it goes over either.
const (
	// MaxEvalMemory bounds the heap while an expression is evaluated.
	MaxEvalMemory = 2 << 30
	// MaxEvalTime bounds the time one expression takes.
	MaxEvalTime = 10 * time.Second
)

// evaluation is the expression being evaluated and since when.
type evaluation struct {
	rng   hcl.Range
	start time.Time
}

var current atomic.Pointer[evaluation]

// evalExpr evaluates expr in ctx, recording it as the expression being
// evaluated for Guard.
func evalExpr(expr hcl.Expression, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	prev := current.Swap(&evaluation{rng: expr.Range(), start: time.Now()})
	defer current.Store(prev)
	return expr.Value(ctx)
}

// GuardLimits are what Guard enforces; the zero value means MaxEvalMemory,
// MaxEvalTime, checked every 10 ms.
type GuardLimits struct {
	Memory   uint64
	Time     time.Duration
	Interval time.Duration
}

// Watch records rng as what is being evaluated until done is called, for
// evaluation outside this package: a provider decoding its own block.
func Watch(rng hcl.Range) (done func()) {
	prev := current.Swap(&evaluation{rng: rng, start: time.Now()})
	return func() { current.Store(prev) }
}

// Guard watches expression evaluation until stop is closed. When one
// expression makes the heap pass the memory limit or runs longer than the
// time limit, it calls runaway once with a diagnostic naming the
// expression, and returns. runaway must end the process: the evaluation
// cannot be interrupted. cmd/lab runs it for every command.
func Guard(stop <-chan struct{}, lim GuardLimits, runaway func(*hcl.Diagnostic)) {
	if lim.Memory == 0 {
		lim.Memory = MaxEvalMemory
	}
	if lim.Time == 0 {
		lim.Time = MaxEvalTime
	}
	if lim.Interval == 0 {
		lim.Interval = 10 * time.Millisecond
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(lim.Interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ev := current.Load()
		if ev == nil {
			continue
		}
		metrics.Read(sample)
		heap := sample[0].Value.Uint64()
		var detail string
		switch {
		case heap > lim.Memory:
			detail = fmt.Sprintf("Evaluating this expression took the memory in use past %d MiB, the limit; lab stopped. Build smaller values: fewer or shorter elements, fewer nested for expressions.", lim.Memory>>20)
		case time.Since(ev.start) > lim.Time:
			detail = fmt.Sprintf("Evaluating this expression took more than %s, the limit; lab stopped. Build smaller values: fewer or shorter elements, fewer nested for expressions.", lim.Time)
		default:
			continue
		}
		r := ev.rng
		runaway(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Expression too costly", Detail: detail, Subject: &r})
		return
	}
}
