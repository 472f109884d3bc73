package bench

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/guest"
)

// fakeTool is a made-up tool, faketool, on two Linux ends: `faketool -s
// -p PORT` is its server and `faketool -c ADDR -p PORT` its client. What
// they print is the test's own; the commands around them answer as the
// real ones do: ss -Hltn prints one row per listening socket and no
// header (iproute2, misc/ss.c; -H is --no-header), /proc/stat one "cpuN"
// line per CPU (proc(5)).
type fakeTool struct {
	// listens: the server's socket shows (ss) once its command runs.
	listens bool
	// serverExit, when set, is what the server prints as it exits at once.
	serverExit string
	// oneShot: the server exits by itself once the client ran (iperf3 -1).
	oneShot bool
	// client is the client's run; it may block until ctx is done.
	client func(ctx context.Context) (guest.Result, error)

	mu         sync.Mutex
	serving    bool
	clientRan  chan struct{}
	serverDone bool // the server's command returned
	clientDone bool // the client's command returned
}

const fakeStat = "cpu  4000 0 2300 193530 0 0 170 0 0 0\ncpu0 2100 0 1200 96610 0 0 90 0 0 0\ncpu1 1900 0 1100 96920 0 0 80 0 0 0\n"

// fakeEnd is one end of a fakeTool run.
type fakeEnd struct {
	name string
	w    *fakeTool
}

func (e fakeEnd) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	w := e.w
	switch {
	case c.Argv[0] == "ss":
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.listens && w.serving {
			return guest.Result{Stdout: []byte("LISTEN 0      5         198.18.0.1:7001      0.0.0.0:*\n")}, nil
		}
		return guest.Result{}, nil
	case c.String() == "cat /proc/stat":
		return guest.Result{Stdout: []byte(fakeStat)}, nil
	case c.String() == "faketool -s -p 7001":
		return w.serve(ctx, e.name, c)
	case c.String() == "faketool -c 198.18.0.1 -p 7001":
		res, err := w.client(ctx)
		w.mu.Lock()
		w.clientDone = true
		w.mu.Unlock()
		close(w.clientRan)
		return res, err
	}
	return guest.Result{ExitCode: 127}, &guest.CommandError{Guest: e.name, Cmd: c.String(), ExitCode: 127, Stderr: c.Argv[0] + ": not found"}
}

// serve is the server's command: it exits at once (serverExit), once the
// client ran (oneShot), or when it is killed.
func (w *fakeTool) serve(ctx context.Context, guestName string, c guest.Cmd) (guest.Result, error) {
	defer func() {
		w.mu.Lock()
		w.serving, w.serverDone = false, true
		w.mu.Unlock()
	}()
	if w.serverExit != "" {
		return guest.Result{Stdout: []byte(w.serverExit), ExitCode: 1},
			&guest.CommandError{Guest: guestName, Cmd: c.String(), ExitCode: 1}
	}
	w.mu.Lock()
	w.serving = true
	w.mu.Unlock()
	ran := w.clientRan
	if !w.oneShot {
		ran = nil
	}
	select {
	case <-ran:
		return guest.Result{Stdout: []byte("server totals\n")}, nil
	case <-ctx.Done():
		return guest.Result{Stdout: []byte("killed\n")}, &guest.CommandError{Guest: guestName, Cmd: c.String(), Err: ctx.Err()}
	}
}

func (e fakeEnd) Upload(context.Context, string, io.Reader) error { return nil }
func (e fakeEnd) Name() string                                    { return e.name }
func (e fakeEnd) Close() error                                    { return nil }

func printing(out string) func(context.Context) (guest.Result, error) {
	return func(context.Context) (guest.Result, error) { return guest.Result{Stdout: []byte(out)}, nil }
}

// failedRun turns output starting "error:" into an error naming the
// guest and the command, as a tool that exits 0 on failure needs.
func failedRun(t guest.Transport, c guest.Cmd, res guest.Result, err error) error {
	if msg, ok := strings.CutPrefix(string(res.Stdout), "error: "); ok && err == nil {
		return errors.New(t.Name() + ": " + c.String() + ": " + strings.TrimSpace(msg))
	}
	return err
}

// TestClientServer runs the skeleton against fakeTool: whatever fails,
// the error names the guest and the command, and neither command is
// left running when Run returns.
func TestClientServer(t *testing.T) {
	clientErr := &guest.CommandError{Guest: "pair.t.client", Cmd: "faketool -c 198.18.0.1 -p 7001", ExitCode: 2, Stderr: "no route"}
	for _, tc := range []struct {
		name    string
		tool    *fakeTool
		oneShot bool
		cancel  bool   // cancel the run's context once the client runs
		gate    error  // the start gate's error (Gate set)
		wantErr string // "" for success
		// wantClient and wantServer are Raw.Client and Raw.Server.
		wantClient, wantServer string
	}{
		{name: "ok", tool: &fakeTool{listens: true, client: printing("measured\n")},
			wantClient: "measured\n", wantServer: "killed\n"},
		{name: "one-shot server exits after the client", oneShot: true,
			tool:       &fakeTool{listens: true, oneShot: true, client: printing("measured\n")},
			wantClient: "measured\n", wantServer: "server totals\n"},
		{name: "server not listening", tool: &fakeTool{client: printing("measured\n")},
			wantErr: "pair.t.server: faketool -s -p 7001 not listening on port 7001 after 300ms"},
		{name: "server exits before listening", tool: &fakeTool{serverExit: "bind: address in use\n", client: printing("")},
			wantErr: "pair.t.server: faketool -s -p 7001: exit status 1"},
		{name: "client fails", tool: &fakeTool{listens: true,
			client: func(context.Context) (guest.Result, error) { return guest.Result{ExitCode: 2}, clientErr }},
			wantErr: clientErr.Error(), wantServer: "killed\n"},
		// A one-shot server whose client failed is not awaited but stopped
		// (this one would never exit by itself).
		{name: "client exits 0 but says it failed", oneShot: true,
			tool:       &fakeTool{listens: true, client: printing("error: unable to connect\n")},
			wantErr:    "pair.t.client: faketool -c 198.18.0.1 -p 7001: unable to connect",
			wantClient: "error: unable to connect\n", wantServer: "killed\n"},
		{name: "context cancelled", cancel: true, tool: &fakeTool{listens: true,
			client: func(ctx context.Context) (guest.Result, error) { <-ctx.Done(); return guest.Result{}, ctx.Err() }},
			wantErr: context.Canceled.Error(), wantServer: "killed\n"},
		{name: "start gate refuses", gate: errors.New("another flow failed"),
			tool: &fakeTool{listens: true, client: printing("measured\n")}, wantErr: "another flow failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.tool
			w.clientRan = make(chan struct{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := w.client
			if tc.cancel {
				w.client = func(c context.Context) (guest.Result, error) { cancel(); return client(c) }
			}
			cs := ClientServer{
				Server:        Endpoint{T: fakeEnd{"pair.t.server", w}, Addr: "198.18.0.1", OS: Linux},
				Client:        Endpoint{T: fakeEnd{"pair.t.client", w}, Addr: "198.18.0.2", OS: Linux},
				Port:          7001,
				ServerArgv:    func(port int) []string { return []string{"faketool", "-s", "-p", "7001"} },
				ClientArgv:    func(port int) []string { return []string{"faketool", "-c", "198.18.0.1", "-p", "7001"} },
				ListenTimeout: 300 * time.Millisecond, ClientTimeout: time.Minute,
				ServerFailure: failedRun, ClientFailure: failedRun,
			}
			if tc.oneShot {
				cs.OneShot = time.Hour
			}
			if tc.gate != nil {
				cs.Gate = true
				ctx = WithStartGate(ctx, func(context.Context) error { return tc.gate })
			}
			// Run returns at once in every case; waiting for a one-shot
			// server whose client failed would show as a hang (a bound, not
			// a speed goal: an hour of OneShot against half a minute).
			var raw Raw
			var err error
			done := make(chan struct{})
			go func() { raw, err = cs.Run(ctx); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Run still waits for its server")
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if raw.Client != tc.wantClient || raw.Server != tc.wantServer {
				t.Errorf("client printed %q, server %q; want %q, %q", raw.Client, raw.Server, tc.wantClient, tc.wantServer)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if !w.serverDone {
				t.Error("the server still runs after Run returned")
			}
			if w.serving {
				t.Error("the server still listens after Run returned")
			}
			if tc.wantErr == "" && (raw.Start.IsZero() || raw.End.Before(raw.Start) ||
				strings.Join(raw.ServerArgv, " ") != "faketool -s -p 7001" || len(raw.ClientArgv) != 5) {
				t.Errorf("raw %+v", raw)
			}
		})
	}
}
