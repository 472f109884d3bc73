package operation

import (
	"fmt"
	"strings"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Effects loads run id (an id, "latest" or "previous"; "" = the latest)
// and estimates each matrix factor's main effect and each two-way
// interaction on the metric key (every measured metric when "") for every
// experiment and pair (verdicts.Effects).
func (o *Operation) Effects(id, key string) (results.RunInfo, []verdicts.FactorEffects, error) {
	if key != "" {
		if _, ok := results.MetricByKey(key); !ok {
			return results.RunInfo{}, nil, fmt.Errorf("no metric %q: the metrics are %s", key, strings.Join(results.MetricKeys(), ", "))
		}
	}
	rs := o.ResultStore()
	resolved, err := rs.Resolve(id)
	if id == "" {
		resolved, err = rs.Latest()
		if err != nil {
			err = fmt.Errorf("no results under %s yet: run `lab apply` first (%w)", rs.Dir, err)
		}
	}
	if err != nil {
		return results.RunInfo{}, nil, err
	}
	info, recs, err := rs.Load(resolved)
	if err != nil {
		return results.RunInfo{}, nil, err
	}
	return info, verdicts.Effects(recs, key), nil
}
