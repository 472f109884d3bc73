package plan

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// BudgetPlan is how the plan sized an experiment with a budget: Blocks
// whole blocks of BlockTime each (every (pair, cell) once, at the tool's
// duration and omit plus RunOverhead per run), as many as fit in Budget
// and at most repeat's max, a whole number of LookEvery-block stopping
// units. Warm-up blocks run before and outside the budget.
type BudgetPlan struct {
	Experiment  string        `json:"experiment"`
	Budget      time.Duration `json:"budget"`
	Blocks      int           `json:"blocks"`
	BlockTime   time.Duration `json:"block_time"`
	RunOverhead time.Duration `json:"run_overhead"`
	LookEvery   int           `json:"look_every"`
}

// blockUnit is the stopping unit of e's order in blocks: the looks of a
// budget (and its stop) fall only after whole units. A foldover's blocks
// come in pairs (the second the first reversed), so a budget stops only
// at an even block count there, where a drift has cancelled; any other
// design stops after any block.
func blockUnit(e *spec.Experiment) int {
	if design(e) == results.DesignFoldover {
		return 2
	}
	return 1
}

// budgetBlocks sizes e's budget over its cells: it records the
// BudgetPlan, gives every cell the budget and its design, and returns a
// copy of e whose Repeat is the blocks to plan.
func (p *Plan) budgetBlocks(e *spec.Experiment, cells []cellRuns, runOverhead time.Duration) (*spec.Experiment, *hcl.Diagnostic) {
	var block time.Duration
	for _, c := range cells {
		block += c.run.Spec.Bench.Duration + c.run.Spec.Bench.Omit + runOverhead
	}
	unit := blockUnit(e)
	fit := 0
	if block > 0 {
		fit = int(e.Budget / block)
	}
	n := min(fit, e.Repeat)
	n -= n % unit
	first := e.MinRepeat + (unit-e.MinRepeat%unit)%unit // the first look, a whole unit
	if n < first {
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Budget too small",
			Detail: fmt.Sprintf("Experiment %q: budget %s fits %d blocks of %s (%d runs × their duration, omit and %s overhead each); the first look needs %d. Raise the budget or shorten the runs.",
				e.Name, e.Budget, fit, short(block), len(cells), short(runOverhead), first),
			Subject: e.DeclRange.Ptr()}
	}
	p.Budgets = append(p.Budgets, BudgetPlan{Experiment: e.Name, Budget: e.Budget, Blocks: n, BlockTime: block, RunOverhead: runOverhead, LookEvery: unit})
	for i := range cells {
		r := &cells[i].run
		r.MinRepeat, r.MaxRepeat, r.Budget, r.LookEvery = first, n, e.Budget, unit
	}
	b := *e
	b.Repeat = n
	return &b, nil
}

// budgetNote is the plan's line for one budget.
func budgetNote(b BudgetPlan) string {
	unit := ""
	if b.LookEvery > 1 {
		unit = fmt.Sprintf(", stopping only after a whole %d blocks", b.LookEvery)
	}
	return fmt.Sprintf("  (experiment %s: up to %d blocks in %s (estimated from the tool durations and measured per-run overhead: %s a block, %s overhead a run); stops early once every throughput band is decided%s; warm-ups outside the budget)\n",
		b.Experiment, b.Blocks, short(b.Budget), short(b.BlockTime), short(b.RunOverhead), unit)
}
