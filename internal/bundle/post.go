package bundle

import (
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// Post is what POST.md is made of.
type Post struct {
	Info   Info
	Run    results.RunInfo
	Groups []results.CellGroup
	// Host, Kernel and LoadAvg describe the machine that published the
	// bundle (uname -n, uname -r, /proc/loadavg) when it was published.
	Host, Kernel, LoadAvg string
	// LockFile says whether spec/.lab.lock.hcl is in the bundle.
	LockFile bool
	// Command is the command that reproduces the bundle, as printed.
	Command string
}

// WritePost writes POST.md: a markdown post with the run's table, the plot
// (plot.svg beside it), the provenance and the command to reproduce it.
func WritePost(w io.Writer, p Post) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: run %s\n\n", p.Info.Lab, p.Info.RunID)
	fmt.Fprintf(&b, "Measured with lab %s, published %s. Every record of the run is in `%s/%s/`, "+
		"the full report in [%s](%s).\n\n", p.Info.LabVersion, p.Info.Published.UTC().Format("2006-01-02 15:04 UTC"),
		RecordsDir, p.Info.RunID, ReportFile, ReportFile)
	b.WriteString("## Results\n\n")
	var table strings.Builder
	if err := report.Render(&table, "markdown", p.Run, p.Groups, report.Options{}); err != nil {
		return err
	}
	// The report's own heading is one level below the post's sections.
	b.WriteString(strings.Replace(table.String(), "### ", "### Run: ", 1))
	fmt.Fprintf(&b, "\n![Throughput per cell with 95 %% CI whiskers, beside CPU use](%s)\n\n", PlotFile)

	b.WriteString("## Provenance\n\n")
	item := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, "- %s: %s\n", name, value)
		}
	}
	item("back end", strings.Join(p.Info.BackEnds, ", "))
	item("publishing host", p.Host)
	item("publishing host's kernel", p.Kernel)
	item("load average when published (1, 5, 15 min)", p.LoadAvg)
	for _, n := range p.Info.HostNotes {
		item("note", n)
	}
	item("spec", fmt.Sprintf("`%s/` (hash %s)", SpecDir, p.Info.SpecHash))
	if p.LockFile {
		item("lock file", fmt.Sprintf("`%s/.lab.lock.hcl` (templates, kernels, drivers and tool versions pinned)", SpecDir))
	} else {
		item("lock file", "none (the lab had no .lab.lock.hcl)")
	}
	if p.Info.VarFile != "" {
		item("variables", fmt.Sprintf("`%s/%s`", SpecDir, p.Info.VarFile))
	}
	if len(p.Info.OmittedVariables) > 0 {
		item("sensitive variables left out", strings.Join(p.Info.OmittedVariables, ", ")+" (set them with -var when reproducing)")
	}
	b.WriteString("\n## Reproduce\n\n")
	fmt.Fprintf(&b, "```\n%s\n```\n\n", p.Command)
	fmt.Fprintf(&b, "`lab reproduce` checks `%s` first (`sha256sum -c %s` does too), runs the spec on your back end "+
		"(override variables with -var for your inventory) and judges each cell with two one-sided Welch t-tests "+
		"against ±%s of the mean above: reproduced, not reproduced or inconclusive.\n",
		ManifestFile, ManifestFile, percent(p.Info.Margin))
	_, err := io.WriteString(w, b.String())
	return err
}

// percent renders a fraction as "10 %".
func percent(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f*100), "0"), ".") + " %"
}
