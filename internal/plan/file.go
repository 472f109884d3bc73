package plan

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/state"
)

// Save writes the plan to path (0600), atomically.
func (p *Plan) Save(path string) error { return p.SaveFiltered(path, nil) }

// SaveFiltered is Save with the file's content passed through filter
// (lab's redaction of sensitive values) when it is not nil. A plan holds
// no sensitive value lab needs back: experiments may not use them, and
// apply reads them again from the environment.
func (p *Plan) SaveFiltered(path string, filter func([]byte) []byte) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if filter != nil {
		b = filter(b)
	}
	if err := atomicfile.Write(path, b, 0o600); err != nil {
		return fmt.Errorf("save plan: %w", err)
	}
	return nil
}

// Load reads a saved plan.
func Load(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s is not a saved lab plan: %w", path, err)
	}
	switch p.Format {
	case Format:
	case 2:
		// Format 2 recorded no template identities: apply reads them fresh
		// and compares them with the lock file only.
		p.Format, p.Templates = Format, nil
	default:
		return nil, fmt.Errorf("%s: plan format %d, this lab reads formats 2 and %d: run `lab plan -out` again", path, p.Format, Format)
	}
	return &p, nil
}

// StaleError says a saved plan no longer matches the state or the spec.
type StaleError struct{ Why string }

func (e *StaleError) Error() string {
	return "saved plan is stale: " + e.Why + "; run `lab plan -out` again"
}

// CheckFresh refuses a saved plan made against another state or spec.
func (p *Plan) CheckFresh(st *state.State, labHash string) error {
	switch {
	case st.Lineage != p.Lineage && p.Serial > 0:
		return &StaleError{fmt.Sprintf("state lineage is %s, the plan was made for %s", st.Lineage, p.Lineage)}
	case st.Serial != p.Serial:
		return &StaleError{fmt.Sprintf("state serial is %d, the plan was made at serial %d", st.Serial, p.Serial)}
	case labHash != p.LabHash:
		return &StaleError{"the lab's .hcl files changed since the plan was made"}
	}
	return nil
}
