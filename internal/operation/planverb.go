package operation

import (
	"context"
	"fmt"

	labssh "github.com/lab-bench/lab/guest/ssh"

	"github.com/lab-bench/lab/internal/plan"
)

// PlanArgs are plan's arguments, parsed from its flags by the CLI.
type PlanArgs struct {
	Vars      Vars
	Only      Only
	OrderSeed int64
	// Out is the file to save the plan to ("": none).
	Out string
}

// PlanView shows a plan.
type PlanView interface {
	// Plan shows p; vars are its variables with sensitive values
	// redacted (RedactVars), for a view that shows them.
	Plan(p *plan.Plan, vars []string) error
	// Saved says that the plan was saved to out.
	Saved(out string)
}

// Plan is `lab plan`: it loads the lab, configures its providers, reads
// the state (without locking it), plans the selection, warns of template
// drift, asks the providers for network changes, shows the plan and saves
// it to args.Out. It reports whether apply would change anything
// (HasChanges).
func (o *Operation) Plan(ctx context.Context, args PlanArgs, view PlanView) (changes bool, err error) {
	ctx = labssh.WithPinFile(ctx, o.PinFile())
	lab, err := o.LoadLab(args.Vars)
	if err != nil {
		return false, err
	}
	if err := args.Only.Check(lab); err != nil {
		return false, err
	}
	provs, err := o.ConfigureProviders(ctx, lab)
	if err != nil {
		return false, err
	}
	defer o.CloseProviders(provs)
	st, err := o.ReadState(lab.Name)
	if err != nil {
		return false, err
	}
	p, err := o.MakePlan(lab, st, args.Vars, provs, Selection{Only: args.Only, OrderSeed: args.OrderSeed})
	if err != nil {
		return false, err
	}
	ctx, stop := Interruptible(ctx)
	defer stop()
	if err := o.WarnTemplateDrift(ctx, p, provs); err != nil {
		return false, err
	}
	if args.Out != "" {
		RecordTemplates(ctx, o.Stderr, p, provs)
	}
	if err := PlanNetworkChanges(ctx, p, provs); err != nil {
		return false, err
	}
	if sensitive := SensitiveVars(lab, args.Vars.Vars); args.Out != "" && len(sensitive) > 0 {
		return false, fmt.Errorf("variable %q is sensitive: a saved plan would hold its value; set it as LAB_VAR_%s in the environment instead (apply reads it again)", sensitive[0], sensitive[0])
	}
	if err := view.Plan(p, RedactVars(lab, p.Vars)); err != nil {
		return false, err
	}
	if args.Out != "" {
		if err := p.SaveFiltered(args.Out, o.Secrets.Bytes); err != nil {
			return false, err
		}
		view.Saved(args.Out)
	}
	return HasChanges(p), nil
}
