package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/lab-bench/lab/guest"
)

// ClientServer is one run of a tool that has a server and a client: the
// skeleton every runner of bench/<tool> plugs into. Run picks the port,
// starts the server on the server end and waits until it takes clients,
// reads the tool's version, waits at the start gate, runs the client
// under a timeout while sampling both ends' CPU, then stops the server
// (or waits for a one-shot server to exit) and returns what both printed
// beside their command lines, the client's start and end and the CPU use.
// The server is gone when Run returns, whatever happened.
//
// A tool fills in only what differs: its command lines, how to tell its
// server is ready, how its commands fail, what of their output to keep.
type ClientServer struct {
	// Server and Client are the ends; the server's command runs on Server.
	Server, Client Endpoint
	// Port is the port the spec asked for; 0: Run picks one that nothing
	// listens on, from BasePort up (PortFor).
	Port, BasePort int
	// ServerArgv and ClientArgv are the tool's command lines for port,
	// before they are pinned to each end's CPUs (Endpoint.Pin).
	ServerArgv, ClientArgv func(port int) []string

	// Ready reports whether the server takes clients; nil: a TCP socket
	// listens on port (Listening). ReadyState names what was awaited in
	// errors, with %d for the port (default "listening on port %d").
	Ready      func(ctx context.Context, ep Endpoint, port int) (bool, error)
	ReadyState string
	// ListenTimeout bounds waiting for Ready (default 5 s); Poll is how
	// often Ready is asked (default 20 ms).
	ListenTimeout, Poll time.Duration

	// ClientTimeout bounds the client's run; the client is killed then.
	ClientTimeout time.Duration
	// OneShot, when set, is how long a server that exits by itself once
	// its client is done (iperf3 -s -1) may take to; its exit is then
	// checked with ServerFailure. Zero: the server runs until Run stops it,
	// Linger after the client exits (iperf 2 prints its totals late).
	OneShot, Linger time.Duration
	// Gate makes Run wait at ctx's start gate (AwaitStart) once the server
	// is ready: the tool's runner is then a StartGater.
	Gate bool
	// Version, when set, reads the tool's version on the client end before
	// the client runs, for tools that do not print it (Raw.Version).
	Version func(ctx context.Context, t guest.Transport) string

	// ReadCPU reads an end's per-CPU times (nil: CPUReader for the end's
	// OS); CPU says when. CPUDetail records each end's CPU count and clock
	// as well (CPUUsage.NumCPUs, MHz).
	ReadCPU   func(context.Context, guest.Transport) (map[int]CPUTimes, error)
	CPU       CPUWindow
	CPUDetail bool

	// ServerFailure and ClientFailure turn a command's result into its
	// error, nil when it succeeded (a tool that exits 0 on failure reads
	// its output); nil: the command's own error. ServerFailure is asked
	// when the server exits before it is ready and when a OneShot server
	// exits.
	ServerFailure, ClientFailure func(t guest.Transport, c guest.Cmd, res guest.Result, err error) error
	// ServerStderr and ClientStderr keep what each end's command wrote to
	// stderr, after its stdout, in Raw.Server and Raw.Client.
	ServerStderr, ClientStderr bool
}

// Run runs the server and the client (see ClientServer). Until the client
// has run it returns an empty Raw with its error; after, the Raw so far.
func (cs ClientServer) Run(ctx context.Context) (Raw, error) {
	port, err := PortFor(ctx, cs.Server, cs.Port, cs.BasePort)
	if err != nil {
		return Raw{}, err
	}
	srvCmd := guest.Cmd{Argv: cs.Server.Pin(cs.ServerArgv(port)...)}
	srv, err := startServer(ctx, cs.Server, srvCmd, cs.readiness(port), cs.ServerFailure)
	if err != nil {
		return Raw{}, err
	}
	defer srv.Stop()
	raw := Raw{ServerArgv: srvCmd.Argv}
	if cs.Version != nil {
		raw.Version = cs.Version(ctx, cs.Client.T)
	}
	// Concurrent flows' clients start together, once every server is ready.
	if cs.Gate {
		if err := AwaitStart(ctx); err != nil {
			return Raw{}, err
		}
	}
	cpu := cs.CPU.start(ctx, cs.ReadCPU, cs.Server, cs.Client)
	cctx, cancel := context.WithTimeout(ctx, cs.ClientTimeout)
	defer cancel()
	cliCmd := guest.Cmd{Argv: cs.Client.Pin(cs.ClientArgv(port)...)}
	raw.ClientArgv, raw.Start = cliCmd.Argv, time.Now()
	res, err := cs.Client.T.Run(cctx, cliCmd)
	raw.End = time.Now()
	raw.Client = output(res, cs.ClientStderr)
	before, after, cpuErr := cpu.stop(ctx)
	if cs.ClientFailure != nil {
		err = cs.ClientFailure(cs.Client.T, cliCmd, res, err)
	}
	srvErr := cs.finish(ctx, srv, err == nil, &raw)
	switch {
	case err != nil:
		return raw, err
	case srvErr != nil:
		return raw, srvErr
	case cpuErr != nil:
		return raw, fmt.Errorf("cpu sampling: %w", cpuErr)
	}
	raw.ServerCPU = Usage(before[0], after[0], cs.Server.CPUs)
	raw.ClientCPU = Usage(before[1], after[1], cs.Client.CPUs)
	if cs.CPUDetail {
		raw.ServerCPU.NumCPUs, raw.ClientCPU.NumCPUs = numCPUs(cs.Server.CPUs, after[0]), numCPUs(cs.Client.CPUs, after[1])
		raw.ServerCPU.MHz, _ = ReadMHz(ctx, cs.Server)
		raw.ClientCPU.MHz, _ = ReadMHz(ctx, cs.Client)
	}
	return raw, nil
}

// readiness is how Run waits for the server on port.
func (cs ClientServer) readiness(port int) readiness {
	r := readiness{state: "listening on port %d", timeout: cs.ListenTimeout, poll: cs.Poll}
	if cs.ReadyState != "" {
		r.state = cs.ReadyState
	}
	r.state = fmt.Sprintf(r.state, port)
	if r.timeout == 0 {
		r.timeout = 5 * time.Second
	}
	if r.poll == 0 {
		r.poll = 20 * time.Millisecond
	}
	ready := cs.Ready
	if ready == nil {
		ready = Listening
	}
	r.check = func(ctx context.Context) (bool, error) { return ready(ctx, cs.Server, port) }
	return r
}

// finish ends the server once the client has run and keeps what it
// printed in raw: a OneShot server whose client succeeded is awaited and
// its exit checked; any other is stopped, after Linger.
func (cs ClientServer) finish(ctx context.Context, srv *Server, clientOK bool, raw *Raw) error {
	if cs.OneShot > 0 && clientOK {
		x, exited := srv.await(cs.OneShot)
		raw.Server = output(x.res, cs.ServerStderr)
		if !exited {
			return fmt.Errorf("%s: %s did not exit %v after the client: %w", srv.T.Name(), srv.Cmd, cs.OneShot, x.err)
		}
		if cs.ServerFailure != nil {
			return cs.ServerFailure(srv.T, srv.Cmd, x.res, x.err)
		}
		return x.err
	}
	if cs.OneShot == 0 && cs.Linger > 0 {
		t := time.NewTimer(cs.Linger)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	raw.Server = output(srv.halt().res, cs.ServerStderr)
	return nil
}

// output is what a command printed: stdout, then stderr if asked.
func output(res guest.Result, stderr bool) string {
	if stderr {
		return string(res.Stdout) + string(res.Stderr)
	}
	return string(res.Stdout)
}

// numCPUs is how many CPUs a reading covers: the pinned ones, else all.
func numCPUs(pinned []int, all map[int]CPUTimes) int {
	if len(pinned) > 0 {
		return len(pinned)
	}
	return len(all)
}
