package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
)

// Publish is publish's view (operation.PublishView) on W.
type Publish struct{ W io.Writer }

// Published says where the bundle went, how to check it and which
// sensitive variables it leaves out.
func (v Publish) Published(run results.RunInfo, lab string, records int, out string, b bundle.Info) {
	fmt.Fprintf(v.W, "Published run %s of lab %q (%d records) to %s.\nCheck it with: %s\n", run.ID, lab, records, out,
		"lab reproduce "+operation.ShellQuote(out))
	if len(b.OmittedVariables) > 0 {
		fmt.Fprintf(v.W, "Sensitive variables left out: %s (a reproducer sets them with -var).\n", strings.Join(b.OmittedVariables, ", "))
	}
}
