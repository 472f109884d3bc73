package main

import (
	"fmt"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/verdicts"
)

// runPublish is `lab publish -o DIR [RUN]`: a self-contained bundle of a
// run (bundle package) that `lab reproduce` checks on another machine.
func runPublish(g *globals, args []string) error {
	fl := newFlags(g, "publish", "publish -o DIR [-margin 10%] [-shape-margin 5%] [-note TEXT] [-sign KEY] [-var k=v] [-var-file F] [RUN]")
	out := fl.String("o", "", "write the bundle to `DIR` (must not exist, or be empty)")
	sign := fl.String("sign", "", "sign the bundle's manifest with the SSH private key file `KEY` (ssh-keygen -Y sign)")
	margin := percentFlag{v: defaultMargin}
	fl.Var(&margin, "margin", "the equivalence `margin` lab reproduce uses by default (\"10%\" or 0.1)")
	shapeMargin := percentFlag{v: verdicts.DefaultShapeMargin}
	fl.Var(&shapeMargin, "shape-margin", "the `margin` of a shape's change (a cell over its reference) lab reproduce uses by default (\"5%\" or 0.05)")
	var notes []string
	fl.Func("note", "a note on the publishing machine for the reader (`TEXT`, repeatable), e.g. \"/dev/kvm is kvm-pvm: TCG only\"",
		func(s string) error { notes = append(notes, s); return nil })
	var v varFlags
	v.register(fl)
	if err := parseFlags(fl, args, optionalArg("a run id (default: the latest)")); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("publish needs -o DIR, the directory to write the bundle to")
	}
	return g.op().Publish(operation.PublishArgs{Vars: v.opVars(), PublishOptions: operation.PublishOptions{
		Out: *out, Run: fl.Arg(0), Margin: margin.v, ShapeMargin: shapeMargin.v, Notes: notes, SignKey: *sign}}, view.Publish{W: g.stdout})
}

// defaultMargin is the equivalence margin when none is given: 10 % of the
// published mean (docs/ci-recipe.md says where it comes from).
const defaultMargin = 0.10
