package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bundle"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/spec"
)

// runPublish is `lab publish -o DIR [RUN]`: a self-contained bundle of a
// run (bundle package) that `lab reproduce` checks on another machine.
func runPublish(g *globals, args []string) error {
	fl := newFlags(g, "publish", "publish -o DIR [-margin 10%] [-note TEXT] [-var k=v] [-var-file F] [RUN]")
	out := fl.String("o", "", "write the bundle to `DIR` (must not exist, or be empty)")
	margin := percentFlag{v: defaultMargin}
	fl.Var(&margin, "margin", "the equivalence `margin` lab reproduce uses by default (\"10%\" or 0.1)")
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
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	info, recs, err := g.op().PublishableRun(lab, fl.Arg(0))
	if err != nil {
		return err
	}
	tmp, err := operation.NewBundleDir(*out)
	if err != nil {
		return err
	}
	// Gone once renamed into place; after a failure, a leftover
	// .lab-publish-* directory beside DIR is all a failed removal leaves.
	defer func() { _ = os.RemoveAll(tmp) }()
	b := bundle.Info{Format: bundle.Format, Lab: lab.Name, RunID: info.ID, SpecHash: info.SpecHash, LabVersion: info.LabVersion,
		Published: time.Now().UTC(), Margin: margin.v, BackEnds: operation.BackEnds(recs), HostNotes: append(accelNotes(lab), notes...),
		Reproduce: "lab reproduce " + shellQuote(filepath.Base(filepath.Clean(*out)))}
	lock, err := g.op().FillBundle(lab, v.opVars(), info, recs, tmp, &b)
	if err != nil {
		return err
	}
	if err := operation.WritePost(tmp, b, info, recs, lock); err != nil {
		return err
	}
	if err := operation.RefuseSecrets(lab, tmp); err != nil {
		return err
	}
	if err := bundle.Sign(tmp); err != nil {
		return err
	}
	if err := os.Remove(*out); err != nil && !errors.Is(err, fs.ErrNotExist) { // an empty directory
		return fmt.Errorf("publish: %w", err)
	}
	if err := os.Rename(tmp, *out); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := os.Chmod(*out, 0o755); err != nil { // MkdirTemp made it 0700
		return fmt.Errorf("publish: %w", err)
	}
	fmt.Fprintf(g.stdout, "Published run %s of lab %q (%d records) to %s.\nCheck it with: %s\n", info.ID, lab.Name, len(recs), *out,
		"lab reproduce "+shellQuote(*out))
	if len(b.OmittedVariables) > 0 {
		fmt.Fprintf(g.stdout, "Sensitive variables left out: %s (a reproducer sets them with -var).\n", strings.Join(b.OmittedVariables, ", "))
	}
	return nil
}

// defaultMargin is the equivalence margin when none is given: 10 % of the
// published mean (docs/ci-recipe.md says where it comes from).
const defaultMargin = 0.10

// accelNotes says which libvirt providers ran under TCG (accel = "tcg"):
// emulated CPUs, figures far below what KVM gives.
func accelNotes(lab *spec.Lab) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(lab.Providers)) {
		pb := lab.Providers[key]
		if pb.Type != "libvirt" {
			continue
		}
		content, _, _ := pb.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "accel"}}})
		a, ok := content.Attributes["accel"]
		if !ok {
			continue
		}
		if v, d := a.Expr.Value(lab.EvalContext()); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && v.AsString() == "tcg" {
			out = append(out, fmt.Sprintf("provider %q: TCG (QEMU emulation), no KVM acceleration: figures are far below what KVM gives", key))
		}
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and "-_./=:,+@%".
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
		}
	}
	if safe && !strings.HasPrefix(s, "-") {
		return s
	}
	if strings.HasPrefix(s, "-") {
		s = "./" + s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
