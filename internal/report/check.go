package report

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lab-bench/lab/internal/verdicts"
)

// verdictColor is the ANSI colour of each verdict in the check table.
var verdictColor = map[verdicts.Verdict]string{
	verdicts.VerdictPass:         "\x1b[32m",
	verdicts.VerdictFail:         "\x1b[31m",
	verdicts.VerdictInconclusive: ansiYellow,
	verdicts.VerdictIncomplete:   ansiYellow,
	// A published table's cells: reproduced as a pass, not reproduced as a
	// fail; not comparable is no judgement (uncoloured).
	verdicts.VerdictReproduced:    "\x1b[32m",
	verdicts.VerdictNotReproduced: "\x1b[31m",
}

// RenderChecks writes the expectation verdicts as a table: one row per
// checked cell (or cell pair for ratios), then one summary line per
// expectation.
func RenderChecks(w io.Writer, runID string, outs []verdicts.Outcome, opt Options) error {
	if _, err := fmt.Fprintf(w, "expectations checked against run %s\n", runID); err != nil {
		return err
	}
	table := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	table.Header([]string{"expectation", "pair", "cell", "measured", "expected", "verdict", "MDE", "why"})
	for _, o := range outs {
		for _, c := range o.Checks {
			v := string(c.Verdict)
			if opt.Color {
				v = verdictColor[c.Verdict] + v + ansiReset
			}
			why := c.Reason
			if c.Noisy {
				why = "noisy cell; " + why
			}
			if err := table.Append([]string{o.Name, c.Pair, c.Cell, c.Measured, c.Expected, v, c.MDEText(), why}); err != nil {
				return fmt.Errorf("render checks: %w", err)
			}
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("render checks: %w", err)
	}
	counts := map[verdicts.Verdict]int{}
	for _, o := range outs {
		counts[o.Verdict]++
	}
	published := ""
	for _, v := range []verdicts.Verdict{verdicts.VerdictReproduced, verdicts.VerdictNotReproduced, verdicts.VerdictNotComparable} {
		if counts[v] > 0 {
			published += fmt.Sprintf(", %d %s", counts[v], v)
		}
	}
	_, err := fmt.Fprintf(w, "%d expectation(s): %d pass, %d fail, %d inconclusive, %d incomplete%s\n", len(outs),
		counts[verdicts.VerdictPass], counts[verdicts.VerdictFail], counts[verdicts.VerdictInconclusive], counts[verdicts.VerdictIncomplete], published)
	return err
}
