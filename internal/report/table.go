package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lab-bench/lab/internal/results"
)

// ANSI colours for the table format.
const (
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

func renderTable(w io.Writer, info results.RunInfo, groups []results.CellGroup, opt Options) error {
	t := buildTable(groups)
	title := fmt.Sprintf("run %s · lab %s · %s", info.ID, info.Lab, info.Status)
	if info.Note != "" {
		title += " (" + info.Note + ")"
	}
	if opt.Color {
		title = ansiBold + title + ansiReset
	}
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}

	align := make([]tw.Align, len(t.numeric))
	for i, num := range t.numeric {
		align[i] = tw.AlignLeft
		if num {
			align[i] = tw.AlignRight
		}
	}
	table := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off), // keep "Gb/s", not "GB/S"
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	table.Header(t.header)
	for _, row := range t.rows {
		if opt.Color && row[len(row)-1] != "" {
			row[len(row)-1] = ansiYellow + row[len(row)-1] + ansiReset
		}
		if err := table.Append(row); err != nil {
			return fmt.Errorf("render table: %w", err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("render table: %w", err)
	}
	if _, err := fmt.Fprintf(w, "throughput: mean ± 95 %% CI half-width (Student's t); noisy: half-width > %.0f %% of the mean\n", results.NoisyRatio*100); err != nil {
		return err
	}
	if n := quantileNote(groups); n != "" {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	if lines := aggregateLines(groups); len(lines) > 0 {
		_, err := fmt.Fprintf(w, "%s\n  %s\n", aggregateHeading, strings.Join(lines, "\n  "))
		return err
	}
	return nil
}
