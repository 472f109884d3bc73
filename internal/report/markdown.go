package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// renderMarkdown writes a short header and a GitHub-flavoured markdown
// table: what a person pastes into a mailing-list post or an issue.
func renderMarkdown(w io.Writer, info results.RunInfo, groups []results.CellGroup) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### lab %s, run %s\n\n", info.Lab, info.ID)
	var kernels, tools, hosts, drivers, offloads, rings []string
	if info.Host != "" {
		hosts = append(hosts, info.Host)
	}
	for _, g := range groups {
		kernels = appendNew(kernels, g.Kernels...)
		tools = appendNew(tools, g.ToolVersions...)
		hosts = appendNew(hosts, g.Hosts...)
		drivers = appendNew(drivers, g.Drivers...)
		offloads = appendNew(offloads, g.Offloads...)
		rings = appendNew(rings, g.Rings...)
	}
	item := func(name string, values ...string) {
		if len(values) > 0 && values[0] != "" {
			fmt.Fprintf(&b, "- %s: %s\n", name, strings.Join(values, ", "))
		}
	}
	if !info.Started.IsZero() {
		item("date", info.Started.UTC().Format("2006-01-02 15:04 UTC"))
	}
	status := info.Status
	if info.Note != "" {
		status += " (" + info.Note + ")"
	}
	item("status", status)
	item("kernels", kernels...)
	item("NIC drivers", drivers...)
	item("IP version", ipVersions(groups)...)
	for _, o := range offloads {
		item("offloads observed", o)
	}
	for _, r := range rings {
		item("NIC ring sizes observed (current/max)", r)
	}
	item("tool", tools...)
	item("host", hosts...)
	item("lab version", info.LabVersion)
	b.WriteString("\n")

	t := buildTable(groups)
	writeMDRow(&b, t.header)
	sep := make([]string, len(t.header))
	for i, num := range t.numeric {
		sep[i] = "---"
		if num {
			sep[i] = "---:"
		}
	}
	writeMDRow(&b, sep)
	for _, row := range t.rows {
		writeMDRow(&b, row)
	}
	fmt.Fprintf(&b, "\nThroughput is the mean ± the 95 %% confidence interval's half-width (Student's t) over n runs; "+
		"\"noisy\" marks a half-width above %.0f %% of the mean.\n", results.NoisyRatio*100)
	if n := quantileNote(groups); n != "" {
		b.WriteString("\n" + n + "\n")
	}
	if lines := aggregateLines(groups); len(lines) > 0 {
		b.WriteString("\n" + strings.ToUpper(aggregateHeading[:1]) + aggregateHeading[1:] + "\n\n")
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMDRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		c = strings.ReplaceAll(c, `\`, `\\`)
		c = strings.ReplaceAll(c, "|", `\|`)
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// ipVersions lists the IP versions the groups' runs went over, with the
// addresses of IPv6 ones ("IPv4", "IPv6 fd…::2 -> fd…::1"); nothing when
// every run went over IPv4, as every run did before ip_version.
func ipVersions(groups []results.CellGroup) []string {
	var out []string
	v6 := false
	for _, g := range groups {
		if g.N == 0 {
			continue // no run of it went over anything
		}
		if len(g.IPVersions) == 0 {
			out = appendNew(out, "IPv4")
			continue
		}
		v6 = true
		out = appendNew(out, g.IPVersions...)
	}
	if !v6 {
		return nil
	}
	return out
}
