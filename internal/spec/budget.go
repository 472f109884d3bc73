package spec

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// budgetBlocks is the most blocks a budget runs when repeat does not
// bound them (repeat = { min, max, until = "verdict" } can).
const budgetBlocks = 100

// minBudget is the shortest budget: a run takes a second of overhead.
const minBudget = time.Second

// decodeBudget reads budget = "10m": the experiment runs as many complete
// blocks of its random order as fit in that much benchmark wall time
// (the plan estimates how many) and stops early once the group-sequential
// rule decides every throughput band (until = "verdict"). repeat may be
// left out (min 3, at most budgetBlocks blocks) or bound the blocks as
// { min, max, until = "verdict" }; a fixed repeat = N, the width rule and
// orders other than "random" are refused. Call after repeat and order.
func (l *loader) decodeBudget(e *Experiment, a, repeat, order *hcl.Attribute) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	s, diags := l.evalString(a)
	if diags.HasErrors() {
		return diags
	}
	rng := a.Expr.Range()
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return hcl.Diagnostics{errorf(rng, "Invalid budget", `budget is a duration such as "10m" or "90s", not %q.`, truncate(s, 40))}
	case d < minBudget:
		return hcl.Diagnostics{errorf(rng, "Invalid budget", "budget must be at least 1s, got %s.", d)}
	case order != nil && e.Order != OrderRandom:
		return hcl.Diagnostics{errorf(order.Expr.Range(), "Budget needs random blocks",
			`budget runs whole blocks that hold every (pair, cell) once: use order = "random" (the default), not %q.`, e.Order)}
	case repeat != nil && e.MinRepeat == 0:
		return hcl.Diagnostics{errorf(repeat.Expr.Range(), "Budget with a fixed repeat",
			`The budget decides how many blocks run; repeat = %d fixes it. Remove repeat, or bound the blocks with repeat = { min = 3, max = 20, until = "verdict" }.`, e.Repeat)}
	case repeat != nil && !e.UntilVerdict:
		return hcl.Diagnostics{errorf(repeat.Expr.Range(), "Budget with the width rule",
			`A budget stops on the verdict (the group-sequential rule), not on the interval's width: use until = "verdict".`)}
	}
	e.Budget = d
	if repeat == nil {
		e.MinRepeat, e.Repeat, e.UntilVerdict = minAdaptive, budgetBlocks, true
	}
	return nil
}
