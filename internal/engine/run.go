package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// SettingsError is a requested guest setting that did not take effect
// while the spec is strict.
type SettingsError struct {
	Guest    string
	Problems []string
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("%s: settings did not take effect: %s (set strict = false in the guest block to record this as a warning instead)",
		e.Guest, strings.Join(e.Problems, "; "))
}

// end is one side of a pair, connected.
type end struct {
	in machine.Instance
	// prov made the machine (in a cross pair the ends' differ).
	prov providers.Provider
	t    guest.Transport
	os   guest.OS
	// osName is the template's os ("linux", "freebsd"), for the benchmark
	// runners' OS-specific commands.
	osName string
	// cpuModel is the guest's CPU model name, read once at connect.
	cpuModel string
	// held is what the end's interfaces were last set to and read back
	// as (configure), shared by the end's copies.
	held *heldSettings
}

// session is a group's machines, connected and checked.
type session struct {
	group          *plan.Group
	server, client end
	router         *end // routed pairs only
}

// close ends the session's connections.
func (s *session) close() {
	s.server.t.Close()
	s.client.t.Close()
	if s.router != nil {
		s.router.t.Close()
	}
}

// connectGroup connects to a group's machines, checks their tools and
// snapshots what it borrows.
func (e *Engine) connectGroup(ctx context.Context, l *live) (s *session, err error) {
	g := l.group
	prov, err := e.providerFor(g, g.Server.Address)
	if err != nil {
		return nil, err
	}
	clientProv, err := e.providerFor(g, g.Client.Address)
	if err != nil {
		return nil, err
	}
	server, err := e.connect(ctx, prov, l.server, g.Server.Template.OS)
	if err != nil {
		return nil, err
	}
	s = &session{group: g, server: server}
	defer func() {
		if err != nil {
			s.server.t.Close()
			if s.client.t != nil {
				s.client.t.Close()
			}
			if s.router != nil {
				s.router.t.Close()
			}
		}
	}()
	if s.client, err = e.connect(ctx, clientProv, l.client, g.Client.Template.OS); err != nil {
		return s, err
	}
	if l.router != nil {
		rt, err := e.connect(ctx, prov, *l.router, g.Router.Template.OS) // a routed pair is one provider's
		if err != nil {
			return s, err
		}
		s.router = &rt
	}
	if err := checkGroupTools(ctx, g, s.server, s.client, s.router); err != nil {
		return s, err
	}
	if err := e.snapshotBorrowed(ctx, g, s.server, s.client, s.router); err != nil {
		return s, err
	}
	return s, nil
}

// runAll runs the plan's runs in run order — a random order interleaves
// pairs and groups — each on its group's machines. A group's machines
// are connected at its first run and stay connected to the end. With
// RunsAtOnce > 1 the scheduler runs them (runConcurrently).
func (e *Engine) runAll(ctx context.Context, lives []*live, total int, out *Outcome) error {
	var queue []queued
	for _, l := range lives {
		for _, r := range l.group.Runs {
			queue = append(queue, queued{l, r})
		}
	}
	// By Index, as plan.Plan.Runs: stable, so a plan numbered group by
	// group runs group by group.
	slices.SortStableFunc(queue, func(a, b queued) int { return cmp.Compare(a.r.Index, b.r.Index) })
	if e.RunsAtOnce > 1 {
		return e.runConcurrently(ctx, queue, total, out)
	}
	sessions := map[*live]*session{}
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	session := func(l *live) (*session, error) {
		if s := sessions[l]; s != nil {
			return s, nil
		}
		s, err := e.connectGroup(ctx, l)
		if err != nil {
			return nil, err
		}
		sessions[l] = s
		return s, nil
	}
	adapt := adaptive{now: e.Clock}
	for i := 0; i < len(queue); {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A concurrent experiment's flows of one cell are adjacent
		// (plan.Batches): they run together.
		n := 1
		if k := queue[i].r.FlowsKey(); k != (plan.FlowsKey{}) {
			for i+n < len(queue) && queue[i+n].r.FlowsKey() == k {
				n++
			}
		}
		var flows []flow
		for _, q := range queue[i : i+n] {
			s, err := session(q.l)
			if err != nil {
				return err
			}
			flows = append(flows, flow{s, q.r})
		}
		i += n
		var err error
		if len(flows) == 1 {
			err = e.runOne(ctx, flows[0].s, flows[0].r, &adapt, total, out)
		} else {
			err = e.runFlows(ctx, flows, &adapt, total, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runOne runs r on the session's machines and records it, unless the
// adaptive repeats decided its cell already.
func (e *Engine) runOne(ctx context.Context, s *session, r plan.Run, adapt *adaptive, total int, out *Outcome) error {
	if skip, err := e.skip(r, adapt, total, out); skip || err != nil {
		return err
	}
	release, err := e.hostLock(ctx, s)
	if err != nil {
		return err
	}
	rec, err := e.runWatched(ctx, s, r, total)
	release()
	return e.finish(ctx, s, r, rec, err, adapt, total, out)
}

// hostLock takes the benchmark lock (Engine.HostLock) of a run on the
// sessions' machines; the returned function releases it.
func (e *Engine) hostLock(ctx context.Context, sessions ...*session) (func(), error) {
	if e.HostLock == nil {
		return func() {}, nil
	}
	return e.HostLock(ctx, lockScope(sessions))
}

// onThisHost reports whether one of the session's machines runs on this
// host (Capabilities.OnThisHost).
func (s *session) onThisHost() bool {
	return slices.ContainsFunc(s.ends(), func(e end) bool { return e.prov.Capabilities().OnThisHost })
}

// ends are the session's machines: server, client and the router.
func (s *session) ends() []end {
	out := []end{s.server, s.client}
	if s.router != nil {
		out = append(out, *s.router)
	}
	return out
}

// runWatched runs r on the session's machines, watching them: a machine
// that stops during the run is the run's error.
func (e *Engine) runWatched(ctx context.Context, s *session, r plan.Run, total int) (results.Record, error) {
	rctx, stopWatch := watchRun(ctx, r.Index, s.ends()...)
	rec, err := e.run(rctx, s, r, total)
	if down := stopWatch(); down != nil {
		// A machine stopped: that, not the cancelled command, is the error.
		err = down
	}
	return rec, err
}

// finish records a run that ran (err its failure): the record is written
// with its hardware, and counted.
func (e *Engine) finish(ctx context.Context, s *session, r plan.Run, rec results.Record, err error, adapt *adaptive, total int, out *Outcome) error {
	recordHardware(&rec, s.group)
	e.overlaps.annotate(&rec, r)
	// Runs in flight at once (RunsAtOnce) are recorded one at a time.
	e.recordMu.Lock()
	defer e.recordMu.Unlock()
	if err != nil {
		// A setting that did not take effect (strict) fails this run
		// only, like a failed benchmark: recorded with its reason, and
		// the other cells still run.
		if ctx.Err() != nil {
			out.Stopped++ // interrupted: no result, so not counted as run
			return err
		}
		rec.Error = err.Error()
		e.emit(Event{Type: EvRunFailed, Index: r.Index, Total: total, Experiment: r.Experiment, Pair: r.Pair, Cell: r.CellKey, Repeat: r.Repeat, Message: err.Error()})
	}
	adapt.record(r, rec)
	if werr := e.Results.Write(rec); werr != nil {
		return fmt.Errorf("write result of run %d: %w", r.Index, werr)
	}
	// Counted once recorded, so the summary matches the results.
	out.Runs++
	if rec.Error != "" {
		out.Failed++
	}
	if e.AfterRun != nil {
		if err := e.AfterRun(rec); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) connect(ctx context.Context, prov providers.Provider, in machine.Instance, osName string) (end, error) {
	t, err := prov.Connect(ctx, in)
	if err != nil {
		return end{}, fmt.Errorf("connect %s: %w", in.Address, err)
	}
	drv, err := e.OS(osName)
	if err != nil {
		t.Close()
		return end{}, fmt.Errorf("%s: %w", in.Address, err)
	}
	return end{in: in, prov: prov, t: t, os: drv, osName: osName, cpuModel: bench.ReadCPUModel(ctx, t), held: &heldSettings{}}, nil
}

// run configures both ends for one run, verifies the settings by
// observation, runs the benchmark and returns the record.
func (e *Engine) run(ctx context.Context, s *session, r plan.Run, total int) (results.Record, error) {
	rec := e.newRecord(s.server, s.client, r)
	ev := Event{Index: r.Index, Total: total, Experiment: r.Experiment, Pair: r.Pair, Cell: r.CellKey, Repeat: r.Repeat, Warmup: r.Warmup,
		Duration: r.Spec.Bench.Duration + r.Spec.Bench.Omit}
	rec.Start = e.clock().UTC()

	obsS, obsC, err := e.configureRun(ctx, s, r, ev, &rec)
	if err != nil {
		return rec, err
	}
	params := r.Spec.Bench
	if params.CongestionControl == "" {
		params.CongestionControl = socketCC(r.Spec.Client, obsC, r.Spec.Server, obsS)
	}
	runner, err := e.Runner(params.Tool)
	if err != nil {
		return rec, err
	}
	routerCPU, err := e.measure(ctx, s, r, ev, runner, params, [2]string{obsS.Interface, obsC.Interface}, &rec)
	if err != nil {
		return rec, err
	}
	if err := e.recordSample(r, ev, runner, params, routerCPU, &rec); err != nil {
		return rec, err
	}
	return rec, nil
}

// configureRun configures the run's ends (and its router) at once,
// records what it observed on them, checks the path between them and
// warns of what the observation shows. On an error the record ends there.
// It returns the server's and the client's observations.
func (e *Engine) configureRun(ctx context.Context, s *session, r plan.Run, ev Event, rec *results.Record) (obsS, obsC guest.Observed, err error) {
	server, client, router := s.server, s.client, s.router
	cfg := ev
	cfg.Type = EvConfigure
	e.emit(cfg)
	eg, gctx := errgroup.WithContext(ctx)
	eg.Go(func() (err error) { obsS, err = configure(gctx, server, r.Spec.Server); return })
	eg.Go(func() (err error) { obsC, err = configure(gctx, client, r.Spec.Client); return })
	var obsR *guest.Observed
	if router != nil {
		rs := r.Spec.Router
		rec.Intent.Router = &rs
		eg.Go(func() error {
			o, err := configureRouter(gctx, *router, r.Spec.Router)
			obsR = &o
			return err
		})
	}
	err = eg.Wait()
	observed(rec, obsS, obsC, obsR, server, client)
	if err != nil {
		rec.End = e.clock().UTC()
		return obsS, obsC, err
	}
	if err := e.checkPath(ctx, s.group, server, client, obsS, obsC); err != nil {
		rec.End = e.clock().UTC()
		return obsS, obsC, err
	}
	adviseLoss(r, &obsS, &obsC)
	rec.Observed = results.Observed{Server: obsS, Client: obsC, Router: obsR}
	e.emitWarnings(server.in.Address, &obsS)
	e.emitWarnings(client.in.Address, &obsC)
	e.emitRouterWarnings(router, obsR)
	return obsS, obsC, nil
}

// measure runs the benchmark with params between the configured ends
// (ifaces: the server's and the client's interface), with the run's
// background load, interface counters, host and router CPU meters and
// environment readings around it, into rec. It returns the router's CPU
// use; an error (the load's included) ends the record.
func (e *Engine) measure(ctx context.Context, s *session, r plan.Run, ev Event, runner bench.Runner, params bench.Params, ifaces [2]string, rec *results.Record) (*bench.CPUUsage, error) {
	server, client, router := s.server, s.client, s.router
	ctx, counters := e.countersBefore(ctx, r, server, client, ifaces[0], ifaces[1])
	defer counters()
	waitLoad, err := e.startBackground(ctx, server, client, r)
	if err == nil {
		err = awaitUngated(ctx, runner)
	}
	if err != nil {
		rec.Background = waitLoad()
		rec.End = e.clock().UTC()
		return nil, err
	}
	start := ev
	start.Type = EvRun
	e.emit(start)
	srvAddr, cliAddr, err := benchAddrs(server, client, params, &rec.Provenance)
	if err != nil {
		return nil, err
	}
	stopMeter := e.meterPair(ctx, server, client)
	stopRouter := meterRouter(ctx, router)
	envStart := e.readEnvironment(r.Pair)
	// On this host's clock, as the runner's Raw.Start and Raw.End.
	e.overlaps.measuring(r.Index, time.Now())
	raw, err := runner.Run(ctx,
		bench.Endpoint{T: server.t, Addr: srvAddr, CPUs: server.ep().CPUs, OS: server.osName},
		bench.Endpoint{T: client.t, Addr: cliAddr, CPUs: client.ep().CPUs, OS: client.osName}, params)
	rec.Environment = results.EnvironmentBetween(envStart, e.readEnvironment(r.Pair))
	rec.HostCPU = stopMeter(ctx)
	routerCPU := stopRouter(ctx)
	rec.Raw = raw
	rec.Background = waitLoad()
	rec.End = e.clock().UTC()
	if err == nil && rec.Background != nil && rec.Background.Error != "" {
		err = fmt.Errorf("background load %s: %s (the measurement ran without all of its load)", rec.Background.Params.Tool, rec.Background.Error)
	}
	if err != nil {
		return nil, err
	}
	rec.Counters = e.finishCounters(ctx, counters())
	return routerCPU, nil
}

// recordSample parses the run's output (rec.Raw) into rec's metrics with
// the router's CPU use, warns when the run was disturbed and reports the
// result.
func (e *Engine) recordSample(r plan.Run, ev Event, runner bench.Runner, params bench.Params, routerCPU *bench.CPUUsage, rec *results.Record) error {
	sample, err := runner.Parse(rec.Raw)
	if err != nil {
		return fmt.Errorf("parse %s output: %w", params.Tool, err)
	}
	sample.RouterCPU = routerCPU
	rec.Metrics = sample
	rec.Provenance.ToolVersion = sample.Version
	if results.MarkDisturbed(rec) {
		e.emit(Event{Type: EvWarning, Address: r.Pair, Message: fmt.Sprintf("run %d (%s #%d) disturbed: %s", r.Index, r.CellKey, r.Repeat, rec.Disturbed)})
	}
	e.emit(resultEvent(ev, *rec, params))
	return nil
}

// readEnvironment reads the runner's environment (Engine.Environment); a
// file that does not parse is a warning on the pair, and what did parse
// is kept.
func (e *Engine) readEnvironment(pair string) results.EnvReading {
	r, err := e.Environment.Read()
	if err != nil {
		e.emit(Event{Type: EvWarning, Address: pair, Message: "runner environment: " + err.Error()})
	}
	return r
}

// resultEvent is the event of a run that measured rec: what the view's
// line after each run shows.
func resultEvent(ev Event, rec results.Record, params bench.Params) Event {
	sample := rec.Metrics
	ev.Type, ev.Elapsed = EvResult, rec.End.Sub(rec.Start)
	ev.ThroughputBps, ev.Retransmits = sample.ThroughputBps, sample.Retransmits
	ev.ServerCPU, ev.ClientCPU = sample.ServerCPU.Busy, sample.ClientCPU.Busy
	if sample.Latency != nil {
		ev.LatencyMeanUs = sample.Latency.MeanUs
	}
	ev.TransactionsPerSec = sample.TransactionsPerSec
	ev.UDP, ev.LossPct, ev.JitterMs = params.UDP || sample.Packets > 0, sample.LossPct, sample.JitterMs
	return ev
}

// observed puts what the ends (and the router) reported into rec: the
// observations and, in the provenance, kernel, driver, firmware, link
// speed and CPU.
func observed(rec *results.Record, obsS, obsC guest.Observed, obsR *guest.Observed, server, client end) {
	rec.Observed = results.Observed{Server: obsS, Client: obsC, Router: obsR}
	rec.Provenance.ServerKernel, rec.Provenance.ClientKernel = obsS.Kernel, obsC.Kernel
	rec.Provenance.ServerDriver, rec.Provenance.ClientDriver = obsS.Driver, obsC.Driver
	rec.Provenance.ServerFirmware, rec.Provenance.ClientFirmware = obsS.Firmware, obsC.Firmware
	rec.Provenance.ServerLinkSpeed, rec.Provenance.ClientLinkSpeed = obsS.LinkSpeed, obsC.LinkSpeed
	rec.Provenance.ServerCPUModel, rec.Provenance.ClientCPUModel = server.cpuModel, client.cpuModel
}

// emitRouterWarnings is emitWarnings for the router, when there is one.
func (e *Engine) emitRouterWarnings(router *end, obs *guest.Observed) {
	if router != nil {
		e.emitWarnings(router.in.Address, obs)
	}
}

// adviseLoss adds guest.AdviseLoss's warnings to the sending end's
// observation: the client's, unless the benchmark runs in reverse.
func adviseLoss(r plan.Run, obsS, obsC *guest.Observed) {
	if r.Spec.Bench.Reverse {
		obsS.Warnings = append(obsS.Warnings, guest.AdviseLoss(r.Spec.Client, r.Spec.Server, *obsS, r.Spec.Bench.UDP)...)
	} else {
		obsC.Warnings = append(obsC.Warnings, guest.AdviseLoss(r.Spec.Server, r.Spec.Client, *obsC, r.Spec.Bench.UDP)...)
	}
}

// newRecord is r's record before it runs: what it asks for and where it
// runs.
func (e *Engine) newRecord(server, client end, r plan.Run) results.Record {
	rec := results.Record{Schema: results.Schema, RunID: e.RunID, Lab: e.Lab, Experiment: r.Experiment, Pair: r.Pair,
		Cell: r.Cell, CellKey: r.CellKey, CellIndex: r.CellIndex, Repeat: r.Repeat, Warmup: r.Warmup, Provenance: e.Provenance,
		Intent: results.Intent{Server: r.Spec.Server, Client: r.Spec.Client, Bench: r.Spec.Bench, VCPU: r.Spec.VCPU, MemoryMiB: r.Spec.MemoryMiB}}
	rec.Provenance.Provider = server.in.Provider
	if client.in.Provider != server.in.Provider {
		rec.Provenance.ClientProvider = client.in.Provider
	}
	rec.Provenance.ServerMachine, rec.Provenance.ClientMachine = server.in.Address, client.in.Address
	rec.Provenance.ServerTemplateID = server.ep().TemplateID
	rec.Provenance.ClientTemplateID = client.ep().TemplateID
	for role, side := range map[string]end{"server": server, "client": client} {
		if hs, ok := side.prov.(providers.HostSettingsReporter); ok {
			if rec.Provenance.HostSettings == nil {
				rec.Provenance.HostSettings = map[string]string{}
			}
			rec.Provenance.HostSettings[role] = hs.HostSettings(side.in)
		}
	}
	return rec
}

// awaitUngated waits at ctx's start gate for a runner that does not wait
// there itself (bench.StartGater), so that concurrent flows still start
// together — their servers' start-up then counts in the skew.
func awaitUngated(ctx context.Context, runner bench.Runner) error {
	if _, gates := runner.(bench.StartGater); gates {
		return nil
	}
	return bench.AwaitStart(ctx)
}

// emitWarnings shows each settings warning of a guest (server, client or
// router) as an event naming it; o may be nil (no router observed).
func (e *Engine) emitWarnings(address string, o *guest.Observed) {
	if o == nil {
		return
	}
	for _, w := range o.Warnings {
		e.emit(Event{Type: EvWarning, Address: address, Message: w})
	}
}

// configureRouter applies a router's settings: everything on its first
// interface (towards the server), and the link-level settings — MTU and
// offloads — on its second (towards the client) too, so a jumbo frame can
// cross. Both interfaces are verified.
func configureRouter(ctx context.Context, rt end, s guest.Settings) (guest.Observed, error) {
	obs, err := configure(ctx, rt, s)
	if err != nil || rt.ep().Iface2 == "" {
		return obs, err
	}
	second := rt
	second.in.Endpoint = &machine.Endpoint{Iface: rt.ep().Iface2}
	o2, err := configure(ctx, second, guest.Settings{MTU: s.MTU, Offloads: s.Offloads, Strict: s.Strict})
	obs.Warnings = append(obs.Warnings, o2.Warnings...)
	return obs, err
}

// socketCC is the congestion control the benchmark must select per socket
// when a guest could not set it for the whole namespace.
func socketCC(client guest.Settings, oc guest.Observed, server guest.Settings, os guest.Observed) string {
	if client.CongestionControl != "" && oc.CCScope == "socket" {
		return client.CongestionControl
	}
	if server.CongestionControl != "" && os.CCScope == "socket" {
		return server.CongestionControl
	}
	return ""
}

// benchAddrs are the addresses a run goes between: the ends' IPv4 ones,
// or for a run over IPv6 their IPv6 ones, which it records in prov.
func benchAddrs(server, client end, p bench.Params, prov *results.Provenance) (srv, cli string, err error) {
	if !p.IPv6() {
		return server.ep().Addr, client.ep().Addr, nil
	}
	for _, e := range []end{server, client} {
		if e.ep().Addr6 == "" {
			return "", "", fmt.Errorf("%s has no IPv6 address: ip_version %s needs a pair made with IPv6 links (plan again: the pair is replaced)",
				e.in.Address, p.IPVersion)
		}
	}
	prov.IPVersion, prov.ServerAddr, prov.ClientAddr = p.IPVersion, server.ep().Addr6, client.ep().Addr6
	return server.ep().Addr6, client.ep().Addr6, nil
}

// ep is the end's endpoint.
func (e end) ep() machine.Endpoint { return machine.EndpointOf(e.in) }

// recordHardware puts the pair's hardware, as the back end was asked to
// make it, into the record's intent: NIC, link MTU, and vCPU and memory
// when the matrix did not set them.
func recordHardware(rec *results.Record, g *plan.Group) {
	if rec.Intent.VCPU == 0 {
		rec.Intent.VCPU = g.Server.VCPU
	}
	if rec.Intent.MemoryMiB == 0 {
		rec.Intent.MemoryMiB = g.Server.MemoryMiB
	}
	if n := g.Server.NIC; n.Model != "" || n.Queues > 0 || len(n.Host) > 0 || n.RXQueueSize > 0 || n.TXQueueSize > 0 {
		rec.Intent.NIC = &results.NIC{Model: n.Model, Queues: n.Queues, Host: n.Host, RXQueueSize: n.RXQueueSize, TXQueueSize: n.TXQueueSize}
	}
	rec.Intent.LinkMTU = g.Link.MTU
}
