package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/verdicts"
)

// junitSuites is the root of a JUnit XML report. Its attributes are the
// ones Jenkins' xunit plugin's junit-10.xsd declares on <testsuites>:
// errors is always written (lab's checks fail or are skipped, they never
// error), and the skipped count lives only on each <testsuite>, where the
// schema declares it (testdata/junit-lab.xsd).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

// junitSuite is one expectation; errors is required by junit-10.xsd.
type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the outcomes of `lab check` as JUnit XML for CI
// systems: one testsuite per expectation, one testcase per check (cell,
// or cell pair for a ratio), named "pair cell". A fail is a <failure>;
// inconclusive and incomplete are <skipped> — or <failure> with strict,
// matching `lab check -strict`'s exit status. A published cell reproduced
// passes, not reproduced fails, not comparable is always <skipped>. The
// message is the reason.
func WriteJUnit(w io.Writer, runID string, outs []verdicts.Outcome, strict bool) error {
	root := junitSuites{Name: "lab check " + runID}
	for _, o := range outs {
		s := junitSuite{Name: o.Name}
		for _, c := range o.Checks {
			name := strings.TrimSpace(c.Pair + " " + c.Cell)
			if name == "" {
				name = o.Name
			}
			tc := junitCase{Name: name, Classname: c.Experiment + "." + c.Kind,
				SystemOut: fmt.Sprintf("measured %s, expected %s: %s", c.Measured, c.Expected, c.Verdict)}
			msg := &junitMessage{Message: c.Reason, Type: string(c.Verdict), Text: c.Reason}
			switch {
			case c.Verdict == verdicts.VerdictPass || c.Verdict == verdicts.VerdictReproduced:
			case c.Verdict == verdicts.VerdictNotComparable:
				tc.Skipped = msg // no judgement, not even with strict
				s.Skipped++
			case c.Verdict.Failing() || strict:
				tc.Failure = msg
				s.Failures++
			default:
				tc.Skipped = msg
				s.Skipped++
			}
			s.Cases = append(s.Cases, tc)
			s.Tests++
		}
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Suites = append(root.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
