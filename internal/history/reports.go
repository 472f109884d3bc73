package history

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// reportFile is the name of a run's report beside the history page, as
// the page's points link to it.
func reportFile(runID string) string { return "report-" + runID + ".html" }

// writeReports writes, in dir, the HTML report of every run of series
// in store that has none there yet (a run's records do not change), as `lab
// report -format html` writes it but without the spec's verdicts; it
// returns how many it wrote.
func writeReports(dir string, store results.Store, series []Series) (int, error) {
	done := map[string]bool{}
	wrote := 0
	for _, s := range series {
		for _, a := range s.Applies {
			path := filepath.Join(dir, reportFile(a.RunID))
			if done[a.RunID] {
				continue
			}
			done[a.RunID] = true
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				continue // there already, or not ours to overwrite
			}
			if _, err := os.Stat(filepath.Join(store.Dir, a.RunID, "run.json")); err != nil {
				continue // an archived run no longer in results/
			}
			info, recs, err := store.Load(a.RunID)
			if err != nil {
				return wrote, err
			}
			var b bytes.Buffer
			r := report.RunReport{Info: info, Groups: results.Group(recs), Options: report.Options{Records: recs,
				ChecksNote: "expectations not checked in this copy: lab report -format html " + a.RunID + " checks them"}}
			if err := report.RenderRuns(&b, "html", []report.RunReport{r}); err != nil {
				return wrote, err
			}
			if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
				return wrote, err
			}
			wrote++
		}
	}
	return wrote, nil
}
