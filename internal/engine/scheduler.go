package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// footprinter is implemented, optionally, by providers that can prove
// which physical resources a machine's benchmark traffic loads
// (providers.Footprint). A provider without it, an error, or the zero
// Footprint is everything: such a pair's runs run alone.
type footprinter interface {
	Footprint(ctx context.Context, in machine.Instance) (providers.Footprint, error)
}

// queued is one run of the plan with the group it runs on.
type queued struct {
	l *live
	r plan.Run
}

// unit is what the scheduler starts: one run, or the flows of one cell
// of a concurrent experiment (plan.Batches), which run together.
type unit []queued

// units cuts the run order into units: a concurrent experiment's flows of
// one cell are adjacent and have one FlowsKey.
func units(queue []queued) []unit {
	var us []unit
	for i := 0; i < len(queue); {
		n := 1
		if k := queue[i].r.FlowsKey(); k != (plan.FlowsKey{}) {
			for i+n < len(queue) && queue[i+n].r.FlowsKey() == k {
				n++
			}
		}
		us = append(us, unit(queue[i:i+n]))
		i += n
	}
	return us
}

// groupResource names a group in a footprint the scheduler holds (not in
// records): a group's runs share its connections, so they never overlap,
// whatever the provider proves.
const groupResource = "lab group "

// everything is how a record names the footprint of a run lab could prove
// nothing about.
const everything = "everything"

// runConcurrently is runAll with RunsAtOnce > 1: the plan's run order
// stays the order, and a unit starts as soon as its footprint meets none
// of the units in flight nor of the earlier ones still waiting
// (schedule). Each unit runs as the serial loop runs it; the records say
// what ran at the same time (overlapLog).
func (e *Engine) runConcurrently(ctx context.Context, queue []queued, total int, out *Outcome) error {
	us := units(queue)
	log := newOverlapLog(us)
	e.overlaps = log
	defer func() { e.overlaps = nil }()
	fps := &groupFootprints{e: e, known: map[*live]providers.Footprint{}, warned: map[*live]bool{}}
	sessions := &sessionCache{e: e, open: map[*live]*session{}}
	defer sessions.close()
	adapt := adaptive{now: e.Clock}
	var mu sync.Mutex
	return schedule(ctx, e.RunsAtOnce, len(us), scheduleFuncs{
		footprint: func(i int, fresh bool) providers.Footprint { return fps.of(ctx, us[i], fresh) },
		started:   log.started,
		run: func(i int) error {
			var o Outcome
			err := e.runUnit(ctx, us[i], sessions, &adapt, total, &o)
			mu.Lock()
			defer mu.Unlock()
			out.Runs, out.Failed, out.Stopped, out.Skipped = out.Runs+o.Runs, out.Failed+o.Failed, out.Stopped+o.Stopped, out.Skipped+o.Skipped
			return err
		},
	})
}

// runUnit runs one unit as runAll's serial loop does: one run alone, or
// the flows of a cell together.
func (e *Engine) runUnit(ctx context.Context, u unit, sessions *sessionCache, adapt *adaptive, total int, out *Outcome) error {
	var flows []flow
	for _, q := range u {
		s, err := sessions.get(ctx, q.l)
		if err != nil {
			return err
		}
		flows = append(flows, flow{s, q.r})
	}
	if len(flows) == 1 {
		return e.runOne(ctx, flows[0].s, flows[0].r, adapt, total, out)
	}
	return e.runFlows(ctx, flows, adapt, total, out)
}

// sessionCache connects each group at its first run. The scheduler never
// runs two units of one group at once (groupResource), so only the map
// needs the lock, not the connect.
type sessionCache struct {
	e    *Engine
	mu   sync.Mutex
	open map[*live]*session
}

func (c *sessionCache) get(ctx context.Context, l *live) (*session, error) {
	c.mu.Lock()
	s := c.open[l]
	c.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := c.e.connectGroup(ctx, l)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.open[l] = s
	c.mu.Unlock()
	return s, nil
}

func (c *sessionCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.open {
		s.close()
	}
}

// groupFootprints asks each group's provider for its machines' footprints,
// once to place the group's runs and again (fresh) just before each one
// starts.
type groupFootprints struct {
	e      *Engine
	mu     sync.Mutex
	known  map[*live]providers.Footprint
	warned map[*live]bool
}

// of is a unit's footprint: the union of its groups'.
func (g *groupFootprints) of(ctx context.Context, u unit, fresh bool) providers.Footprint {
	var fp providers.Footprint
	for i, q := range u {
		if i > 0 && slices.ContainsFunc(u[:i], func(p queued) bool { return p.l == q.l }) {
			continue
		}
		f := g.group(ctx, q.l, fresh)
		if i == 0 {
			fp = f
		} else {
			fp = fp.Union(f)
		}
	}
	return fp
}

func (g *groupFootprints) group(ctx context.Context, l *live, fresh bool) providers.Footprint {
	g.mu.Lock()
	fp, ok := g.known[l]
	g.mu.Unlock()
	if ok && !fresh {
		return fp
	}
	fp, err := g.e.groupFootprint(ctx, l)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.known[l] = fp
	if err != nil && !g.warned[l] && ctx.Err() == nil {
		g.warned[l] = true
		g.e.emit(Event{Type: EvWarning, Address: l.group.Address, Message: fmt.Sprintf(
			"footprint unknown (%v): its runs run alone", err)})
	}
	return fp
}

// groupFootprint is the footprint of a group's runs: its machines' (the
// server's, the client's, the router's, each asked of the provider that
// made it: a cross pair's ends have two), the physical segment between
// its ends when they load disjoint hosts, and the group itself. An error,
// a provider that cannot tell, or one machine it cannot prove anything
// about makes it everything.
func (e *Engine) groupFootprint(ctx context.Context, l *live) (providers.Footprint, error) {
	g := l.group
	ends := []machine.Instance{l.server, l.client}
	addrs := []string{g.Server.Address, g.Client.Address}
	if l.router != nil {
		ends, addrs = append(ends, *l.router), append(addrs, g.Router.Address)
	}
	fps := make([]providers.Footprint, len(ends))
	for i, in := range ends {
		prov, err := e.providerFor(g, addrs[i])
		if err != nil {
			return providers.Footprint{}, err
		}
		fpr, ok := prov.(footprinter)
		if !ok {
			return providers.Footprint{}, nil
		}
		if fps[i], err = fpr.Footprint(ctx, in); err != nil {
			return providers.Footprint{}, err
		}
		if fps[i].Everything() {
			return providers.Footprint{}, nil
		}
	}
	fp := fps[0].Union(fps[1])
	if !fps[0].Meets(fps[1]) {
		fp = fp.Union(providers.FootprintOf("segment " + strings.Join(fp.Resources, " | ")))
	}
	for _, f := range fps[2:] {
		fp = fp.Union(f)
	}
	return fp.Union(providers.FootprintOf(groupResource + l.group.Address)), nil
}

// scheduleFuncs are what schedule asks of the units it starts.
type scheduleFuncs struct {
	// footprint is unit i's footprint: known (fresh false) to place it,
	// asked again (fresh true) just before it starts.
	footprint func(i int, fresh bool) providers.Footprint
	// started is told, in the scheduler's goroutine, that unit i starts
	// now with footprint fp while the units with are in flight.
	started func(i int, fp providers.Footprint, with []int)
	// run runs unit i, in a goroutine of its own.
	run func(i int) error
}

// schedule runs n units, numbered in the plan's run order, at most max
// at once. It walks the waiting units in order and starts one when its
// footprint meets none of the units in flight and none of the earlier
// units still waiting — so the units of each resource run in the plan's
// order, one at a time, and a unit whose footprint is everything runs
// alone, with every later unit waiting for it. A unit about to start has
// its footprint asked again; one that grew meanwhile waits. After an
// error (the first is returned) or once ctx is done nothing more starts,
// and the units in flight finish.
func schedule(ctx context.Context, max, n int, f scheduleFuncs) error {
	type done struct {
		i   int
		err error
	}
	fps := make([]providers.Footprint, n)
	placed := make([]bool, n)
	waiting := make([]int, n)
	for i := range waiting {
		waiting[i] = i
	}
	inflight := map[int]bool{}
	finished := make(chan done)
	var first error
	for {
		if first == nil && ctx.Err() == nil {
			waiting = startReady(max, waiting, inflight, func(i int) providers.Footprint {
				if !placed[i] {
					fps[i], placed[i] = f.footprint(i, false), true
				}
				return fps[i]
			}, func(i int) providers.Footprint {
				fps[i] = f.footprint(i, true)
				return fps[i]
			}, func(i int) {
				with := make([]int, 0, len(inflight))
				for j := range inflight {
					with = append(with, j)
				}
				slices.Sort(with)
				f.started(i, fps[i], with)
				inflight[i] = true
				go func() { finished <- done{i, f.run(i)} }()
			})
		}
		if len(inflight) == 0 {
			break
		}
		d := <-finished
		delete(inflight, d.i)
		if d.err != nil && first == nil {
			first = d.err
		}
	}
	if first == nil && len(waiting) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%d runs never started", len(waiting)) // cannot happen: with none in flight, the first waiting unit starts
	}
	return first
}

// startReady is one walk of the waiting units (in run order): it starts
// each whose footprint (known, then fresh) meets no footprint in flight
// or waiting before it, while fewer than max are in flight, and returns
// the units still waiting.
func startReady(max int, waiting []int, inflight map[int]bool, known, fresh func(int) providers.Footprint, start func(int)) []int {
	var blocked []providers.Footprint
	for j := range inflight {
		blocked = append(blocked, known(j))
	}
	meets := func(fp providers.Footprint) bool {
		return slices.ContainsFunc(blocked, fp.Meets)
	}
	var still []int
	for k, i := range waiting {
		if len(inflight) >= max {
			return append(still, waiting[k:]...)
		}
		fp := known(i)
		if !meets(fp) {
			if fp = fresh(i); !meets(fp) {
				start(i)
				blocked = append(blocked, fp)
				continue
			}
		}
		still = append(still, i)
		blocked = append(blocked, fp)
		if fp.Everything() {
			return append(still, waiting[k+1:]...)
		}
	}
	return still
}

// overlapLog is what ran at the same time, for the records: each unit's
// footprint as it started, the units in flight with it at any moment, and
// each run's benchmark window. A record lists as overlapped only the runs
// whose benchmarks measured while its own did (their windows intersect):
// two runs can be in flight together — one configuring its guests while
// the other measures — without either loading the other's measurement.
type overlapLog struct {
	mu     sync.Mutex
	units  []unit
	unitOf map[int]int // by run index
	fp     []providers.Footprint
	with   [][]int
	// since is when each run's benchmark started (measuring), by run
	// index; window its measured window once recorded (ok false: it
	// measured nothing).
	since  map[int]time.Time
	window map[int]measured
	// met is whether two runs' windows met (by the pair of run indexes,
	// lower first), decided when the first of the two was recorded, so
	// that both records say the same.
	met map[[2]int]bool
}

// measured is a run's benchmark window as its record has it.
type measured struct {
	start, end time.Time
	ok         bool
}

func newOverlapLog(us []unit) *overlapLog {
	l := &overlapLog{units: us, unitOf: map[int]int{}, fp: make([]providers.Footprint, len(us)), with: make([][]int, len(us)),
		since: map[int]time.Time{}, window: map[int]measured{}, met: map[[2]int]bool{}}
	for i, u := range us {
		for _, q := range u {
			l.unitOf[q.r.Index] = i
		}
	}
	return l
}

// started notes that unit i starts with footprint fp while the units
// with are in flight: each may overlap the other.
func (l *overlapLog) started(i int, fp providers.Footprint, with []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fp[i] = fp
	l.with[i] = append(l.with[i], with...)
	for _, j := range with {
		l.with[j] = append(l.with[j], i)
	}
}

// measuring notes that run index starts its benchmark at at (the tool's
// server then its client; the record's Raw.Start follows). A nil log
// (runs one at a time) notes nothing.
func (l *overlapLog) measuring(index int, at time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since[index] = at
}

// annotate puts r's footprint and the runs it overlapped into its record's
// provenance; a nil log (runs one at a time) leaves the record as it is.
// r's window is its record's benchmark window (Raw.Start to Raw.End,
// written by the runner). A run recorded earlier overlapped r when their
// windows intersect; a run still running when r is recorded overlapped it
// when its benchmark started before r's ended, since it is still measuring.
func (l *overlapLog) annotate(rec *results.Record, r plan.Run) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.unitOf[r.Index]
	if !ok {
		return
	}
	rec.Provenance.Footprint = shownFootprint(l.fp[u])
	w := measured{start: rec.Raw.Start, end: rec.Raw.End}
	w.ok = !w.start.IsZero() && !w.end.IsZero() && !w.end.Before(w.start)
	l.window[r.Index] = w
	with := slices.Clone(l.with[u])
	slices.Sort(with)
	with = slices.Compact(with)
	for _, v := range with {
		for _, q := range l.units[v] {
			if !l.overlapped(r.Index, w, q.r.Index) {
				continue
			}
			rec.Provenance.Overlapped = append(rec.Provenance.Overlapped, results.Overlap{Experiment: q.r.Experiment, Pair: q.r.Pair,
				CellKey: q.r.CellKey, Repeat: q.r.Repeat, Footprint: shownFootprint(l.fp[v])})
		}
	}
}

// overlapped decides (once per pair of runs) whether run a, just recorded
// with window w, and run b measured at the same time.
func (l *overlapLog) overlapped(a int, w measured, b int) bool {
	key := [2]int{min(a, b), max(a, b)}
	if met, ok := l.met[key]; ok {
		return met
	}
	met := false
	if bw, done := l.window[b]; done {
		met = w.ok && bw.ok && w.start.Before(bw.end) && bw.start.Before(w.end)
	} else if since, measuring := l.since[b]; measuring {
		met = w.ok && since.Before(w.end)
	}
	l.met[key] = met
	return met
}

// shownFootprint is a footprint as a record carries it: its physical
// resources (not the groups the scheduler adds), or ["everything"].
func shownFootprint(fp providers.Footprint) []string {
	var rs []string
	for _, r := range fp.Resources {
		if !strings.HasPrefix(r, groupResource) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return []string{everything}
	}
	return rs
}
