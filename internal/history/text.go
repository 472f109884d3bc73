package history

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// RenderJSON writes the series as indented JSON.
func RenderJSON(w io.Writer, series []Series) error {
	if series == nil {
		series = []Series{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(series)
}

// RenderText writes each series' span and change points for people.
func RenderText(w io.Writer, series []Series) error {
	var b strings.Builder
	if len(series) == 0 {
		b.WriteString("no applies recorded a value for the selection\n")
	}
	for _, s := range series {
		first, last := s.Applies[0], s.Applies[len(s.Applies)-1]
		fmt.Fprintf(&b, "%s/%s %s — %s: %d applies, %s … %s\n", s.Experiment, s.Pair, s.Cell, s.Metric,
			len(s.Applies), first.RunID, last.RunID)
		if len(s.ChangePoints) == 0 {
			fmt.Fprintf(&b, "  no change point (newest %s)\n", display(s.Metric, last.Value))
		}
		for _, c := range s.ChangePoints {
			writeChange(&b, s, c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeChange writes one change point: levels, magnitude with its
// interval, p, the applies on either side and what differs between them.
func writeChange(b *strings.Builder, s Series, c Change) {
	st := c.Stats
	fmt.Fprintf(b, "  change at apply %d of %d: %s → %s", c.Index+1, len(s.Applies),
		display(s.Metric, st.MeanBefore), display(s.Metric, st.MeanAfter))
	if c.Relative != nil {
		fmt.Fprintf(b, ", %s (95 %% CI %s to %s)", percent(*c.Relative), percent(*c.RelativeLow), percent(*c.RelativeHigh))
	} else {
		fmt.Fprintf(b, ", %s (95 %% CI %s to %s)", display(s.Metric, st.Diff), display(s.Metric, st.DiffLow), display(s.Metric, st.DiffHigh))
	}
	fmt.Fprintf(b, ", p = %.2g, %d applies before, %d after\n", st.P, st.NBefore, st.NAfter)
	fmt.Fprintf(b, "    between %s and %s", c.Before, c.After)
	if len(c.Differs) == 0 {
		b.WriteString("; the same lab version, spec, kernel and host on both sides\n")
	} else {
		var ds []string
		for _, d := range c.Differs {
			s := fmt.Sprintf("%s %s → %s", d.Field, values(d.Before), values(d.After))
			if d.FirstNew != "" {
				s += " (new from " + d.FirstNew + ")"
			}
			ds = append(ds, s)
		}
		fmt.Fprintf(b, "; differs: %s\n", strings.Join(ds, ", "))
	}
	if c.New {
		b.WriteString("    new: not found without the newest apply\n")
	}
}

// display is v in the metric's unit ("9.41 Gb/s").
func display(metric string, v float64) string {
	m, ok := results.MetricByKey(metric)
	if !ok {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatFloat(m.Display(v), 'f', m.Decimals, 64)
	if m.Unit != "" {
		s += " " + m.Unit
	}
	return s
}

// percent is a fraction as a signed percentage ("−13.7 %").
func percent(f float64) string {
	return fmt.Sprintf("%+.1f %%", 100*f)
}

// values are a field's distinct values, "(none)" for an empty one.
func values(vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = cmp.Or(v, "(none)")
	}
	return strings.Join(out, ", ")
}
