package operation

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/verdicts"
)

// CheckArgs are check's arguments, parsed from its flags by the CLI.
type CheckArgs struct {
	Vars Vars
	// Runs are the runs checked together (ids or aliases; none: the
	// latest), each apply's cell mean one observation.
	Runs []string
	// Partial allows checking a run that was interrupted or is running.
	Partial bool
	// Strict fails an inconclusive or incomplete verdict too.
	Strict bool
	// JUnit is the JUnit XML file to write ("" for none).
	JUnit string
}

// CheckView shows the expectations' verdicts.
type CheckView interface {
	// NoExpectations says that lab has no expect blocks.
	NoExpectations(lab string)
	// Checks shows the verdicts on run runID.
	Checks(runID string, outs []verdicts.Outcome) error
}

// Check is `lab check`: it evaluates the lab's expect blocks against the
// runs, shows the verdicts, writes them as JUnit XML when asked and
// returns ErrExpectFailed when one fails (with Strict: any verdict but
// pass).
func (o *Operation) Check(args CheckArgs, view CheckView) error {
	lab, err := o.LoadLab(args.Vars)
	if err != nil {
		return err
	}
	exps, err := Expectations(lab)
	if err != nil {
		return err
	}
	if len(exps) == 0 {
		view.NoExpectations(lab.Name)
		return nil
	}
	runID, outs, err := o.checkRuns(lab, exps, args.Runs, args.Partial)
	if err != nil {
		return err
	}
	if err := view.Checks(runID, outs); err != nil {
		return err
	}
	if args.JUnit != "" {
		if err := WriteJUnit(args.JUnit, runID, outs, args.Strict); err != nil {
			return err
		}
	}
	if ChecksFail(outs, args.Strict) {
		return ErrExpectFailed
	}
	return nil
}

// ValidateView shows what validate found.
type ValidateView interface {
	// Diagnostics shows what decoding lab said (lab may be nil).
	Diagnostics(lab *spec.Lab, diags hcl.Diagnostics) error
	// Valid says that lab is valid: its cells, and the variables taken
	// as unknown for want of a value.
	Valid(lab *spec.Lab, cells int, unknown []string)
}

// Validate is `lab validate`: it decodes and checks the spec, as
// Terraform does, with no variable values and no credentials needed
// (ValidateLab); an error is ErrReported, its diagnostics shown.
func (o *Operation) Validate(v Vars, view ValidateView) error {
	lab, diags := o.ValidateLab(v)
	if err := view.Diagnostics(lab, diags); err != nil {
		return err
	}
	if diags.HasErrors() {
		return ErrReported
	}
	view.Valid(lab, CountCells(lab), UnknownVariables(lab))
	return nil
}
