package plan

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lab-bench/lab/providers"
)

// RenderOptions control how a plan is printed.
type RenderOptions struct {
	Color bool
	// MaxRuns caps the listed runs (0: 200); the rest are counted.
	MaxRuns int
}

var symbols = map[string]string{OpCreate: "+", OpReplace: "-/+", OpDelete: "-", OpKeep: " "}
var colors = map[string]string{OpCreate: "\x1b[32m", OpReplace: "\x1b[33m", OpDelete: "\x1b[31m", OpKeep: ""}

// Render prints the plan the way Terraform does: one line per change, the
// runs with their estimated duration, and a summary line.
func (p *Plan) Render(w io.Writer, o RenderOptions) error {
	if o.MaxRuns == 0 {
		o.MaxRuns = 200
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lab %q will perform the following actions:\n\n", p.LabID)
	if p.Selection != "" {
		fmt.Fprintf(&b, "Selection: %s: %d of %d runs.\n\n", p.Selection, len(p.Runs()), p.AllRuns)
	}
	groups := map[string]*Group{}
	for _, g := range p.Groups {
		groups[g.Address] = g
	}
	changes := 0
	for _, a := range p.Actions {
		sym := symbols[a.Op]
		line := fmt.Sprintf("  %3s %-7s %s", sym, a.Kind, a.Address)
		if g := groups[a.Group]; g != nil && a.Kind == "machine" {
			prov := g.ProviderTypeFor(a.Address)
			if g.Cross() {
				prov = g.ProviderKeyFor(a.Address) // which of the two blocks makes it
			}
			line += fmt.Sprintf("  (%s, %s)", prov, g.ShapeDesc)
		}
		if a.Op == OpKeep {
			line += "  (exists, reused)"
		}
		if a.Reason != "" {
			line += "  # " + a.Reason
		}
		if o.Color && colors[a.Op] != "" {
			line = colors[a.Op] + line + "\x1b[0m"
		}
		if a.Op != OpKeep {
			changes++
		}
		b.WriteString(line + "\n")
	}
	if len(p.Actions) == 0 {
		b.WriteString("  (no machines)\n")
	}
	renderNetworkChanges(&b, p.NetworkChanges)
	runs := p.Runs()
	fmt.Fprintf(&b, "\nRuns (%d):\n", len(runs))
	if p.OrderSeed != 0 {
		fmt.Fprintf(&b, "  (random blocks: every block runs each pair and cell once, in an order drawn from seed %d; -order-seed %d replays it)\n",
			p.OrderSeed, p.OrderSeed)
	}
	b.WriteString(duetNote(p))
	for _, bp := range p.Budgets {
		b.WriteString(budgetNote(bp))
	}
	for i, r := range runs {
		if i == o.MaxRuns {
			fmt.Fprintf(&b, "  … and %d more (lab plan -json lists them all)\n", len(runs)-i)
			break
		}
		tag := fmt.Sprintf("#%d", r.Repeat)
		if r.Warmup {
			tag = fmt.Sprintf("warmup %d", r.Repeat)
		}
		cell := r.CellKey
		if cell == "" {
			cell = "(single cell)"
		}
		fmt.Fprintf(&b, "  %4d  %s/%s  %s  %s  %s%s\n", r.Index, r.Experiment, r.Pair, cell, tag, short(r.Spec.Bench.Duration+r.Spec.Bench.Omit),
			ipVersionNote(r.Spec.Bench.IPVersion)+flowsNote(r)+loadNote(r))
	}
	add, replace, del, _ := p.Counts()
	fmt.Fprintf(&b, "\nPlan: %d to add, %d to replace, %d to destroy; %d runs, estimated %s.\n", add, replace, del, len(runs), short(p.Estimate))
	_, err := io.WriteString(w, b.String())
	return err
}

// flowsNote says, on a run line, which other pairs' flows start with it.
func flowsNote(r Run) string {
	var others []string
	for _, p := range r.Flows {
		if p != r.Pair {
			others = append(others, p)
		}
	}
	if len(r.Flows) < 2 || len(others) == 0 {
		return ""
	}
	return "  (concurrent with " + strings.Join(others, ", ") + ")"
}

// loadNote says, on a run line, what load runs in the background.
func loadNote(r Run) string {
	bg := r.Spec.Background
	if bg == nil {
		return ""
	}
	n := bg.Tool
	if bg.Parallel > 1 {
		n += fmt.Sprintf(" x%d streams", bg.Parallel)
	}
	if bg.Reverse {
		n += " reverse"
	}
	return fmt.Sprintf("  (under load: %s, %s)", n, short(bg.Duration+bg.Omit))
}

// short formats a duration for people: "48s", "3m12s", "1h4m".
func short(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return d.String()
	case d < time.Hour:
		return strings.TrimSuffix(d.String(), "0s")
	default:
		return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	}
}

// renderNetworkChanges lists the changes links make to hosts' networks:
// which switch on which host, and its MTU before and after.
func renderNetworkChanges(b *strings.Builder, changes []providers.NetworkChange) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintf(b, "\nHost network changes (%d; destroy undoes each, restoring the MTU found):\n", len(changes))
	for _, c := range changes {
		where := c.Switch
		if c.Host != "" {
			where += " on host " + c.Host
		}
		from := fmt.Sprint(c.From)
		if c.FromUnset {
			from = fmt.Sprintf("unset (%d by default)", c.From)
		}
		line := fmt.Sprintf("  ~ %s: %s: MTU %s -> %d", c.Link, where, from, c.To)
		if c.Change == "add" {
			line = fmt.Sprintf("  + %s: add %s (MTU %d)", c.Link, where, c.To)
		}
		if c.Note != "" {
			line += "  # " + c.Note
		}
		b.WriteString(line + "\n")
	}
}
