package view

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/plan"
)

// Plan is plan's view (operation.PlanView) on W: the rendered plan, or
// with JSON the plan as an indented JSON document.
type Plan struct {
	W           io.Writer
	JSON, Color bool
}

// Plan shows p; with JSON its variables are vars (sensitive values
// redacted).
func (v Plan) Plan(p *plan.Plan, vars []string) error {
	if !v.JSON {
		return p.Render(v.W, plan.RenderOptions{Color: v.Color})
	}
	enc := json.NewEncoder(v.W)
	enc.SetIndent("", "  ")
	shown := *p
	shown.Vars = vars
	return enc.Encode(&shown)
}

// Saved says where the plan was saved (nothing with JSON).
func (v Plan) Saved(out string) {
	if !v.JSON {
		fmt.Fprintf(v.W, "\n%s\n", SavedPlanNote(out))
	}
}
