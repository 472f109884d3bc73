package operation

import (
	"context"
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers"
)

// RecordTemplates writes into p each machine's template identity as its
// provider reports it now (what the lock file pins), so `apply PLAN` can
// refuse a template changed since the plan. An identity that cannot be
// read is left out, with a warning: apply then cannot check it.
func RecordTemplates(ctx context.Context, warn io.Writer, p *plan.Plan, provs map[string]providers.Provider) {
	for _, grp := range p.Groups {
		for _, m := range grp.Machines() {
			prov, ok := provs[grp.ProviderKeyFor(m.Address)]
			if !ok {
				continue
			}
			id, err := prov.TemplateID(ctx, m)
			if err != nil || id == "" {
				fmt.Fprintf(warn, "Warning: %s: cannot read the identity of template %q (%v): the saved plan cannot refuse it if it changes before apply\n",
					m.Address, m.Template.Name, err)
				continue
			}
			if p.Templates == nil {
				p.Templates = map[string]string{}
			}
			p.Templates[m.Address] = id
		}
	}
}

// CheckTemplatesBeforeCreate compares, before anything is created, each
// machine's template identity now with the one the saved plan recorded
// (always refused when it differs) and, with -locked, the one the lock
// file pins. It used to be compared only after each run, so -locked ran
// benchmarks on a changed template before refusing.
func CheckTemplatesBeforeCreate(ctx context.Context, p *plan.Plan, provs map[string]providers.Provider, lock *lockfile.Lock, strict bool) error {
	for _, grp := range p.Groups {
		for _, m := range grp.Machines() {
			prov, ok := provs[grp.ProviderKeyFor(m.Address)]
			if !ok {
				continue
			}
			planned := p.Templates[m.Address]
			locked := ""
			if lock != nil && strict {
				locked = lock.Machines[m.Address].Template
			}
			if planned == "" && locked == "" {
				continue
			}
			now, err := prov.TemplateID(ctx, m)
			if err != nil {
				return fmt.Errorf("%s: cannot read the identity of template %q to compare with the one pinned: %w; nothing was created", m.Address, m.Template.Name, err)
			}
			if planned != "" && now != planned {
				return fmt.Errorf("template %q of %s changed since the plan was made:\n  planned: %s\n  now:     %s\nnothing was created; run `lab plan -out` again to plan with the new template",
					m.Template.Name, m.Address, planned, now)
			}
			if locked != "" && now != locked {
				return fmt.Errorf("drift from %s (-locked): template %q of %s: locked %q, now %q; nothing was created. "+
					"Apply without -locked (it warns) and then `lab init -upgrade` to accept the new template", lockfile.FileName, m.Template.Name, m.Address, locked, now)
			}
		}
	}
	return nil
}
