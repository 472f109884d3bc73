package bhyve

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

// These tests run engine.Engine with this provider against the fake
// host; only the guests are stubbed.

const engineLab = `
lab "e" {}
provider "bhyve" "box" {
  host     = "%s"
  port     = %d
  host_key = "%s"
  backend  = "%s"
}
template "fbsd" {
  source = "%s"
  os     = "freebsd"
  ssh { user = "root" }
}
pair "cc" {
  template = template.fbsd
  vcpu     = 1
  memory   = "1GiB"
  link { mtu = 1500 }
}
experiment "cc" {
  pairs  = [pair.cc]
  matrix = { cc = ["cubic", "newreno"] }
  guest { congestion_control = matrix.cc }
  iperf2 { duration = "1s" }
}
`

type nopTransport struct{ name string }

func (n nopTransport) Run(context.Context, guest.Cmd) (guest.Result, error) {
	return guest.Result{}, nil
}
func (n nopTransport) Upload(context.Context, string, io.Reader) error { return nil }
func (n nopTransport) Name() string                                    { return n.name }
func (n nopTransport) Close() error                                    { return nil }

type okOS struct{}

func (okOS) Apply(context.Context, guest.Transport, string, guest.Settings) error { return nil }
func (okOS) Observe(_ context.Context, _ guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	return guest.Observed{Interface: iface, CongestionControl: s.CongestionControl, CCScope: "namespace"}, nil
}

type okRunner struct{}

func (okRunner) Run(context.Context, bench.Endpoint, bench.Endpoint, bench.Params) (bench.Raw, error) {
	return bench.Raw{Client: "ok"}, nil
}
func (okRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 9.4e8}, nil
}

type memStore struct{}

func (memStore) Save(*state.State) error { return nil }

type memResults struct{ recs []results.Record }

func (m *memResults) Write(r results.Record) error { m.recs = append(m.recs, r); return nil }

func engineFor(t *testing.T, backend string) (*engine.Engine, *plan.Plan, *fakeHost, *memResults) {
	t.Helper()
	h := newFakeHost()
	srv := newServer(t, h)
	source := map[string]string{"vm-bhyve": "fbsd14-tmpl", "bhyve": "fbsd14-zvol"}[backend]
	dir := t.TempDir()
	src := fmt.Sprintf(engineLab, srv.Host(), srv.Port(), srv.HostKey(), backend, source)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := spec.Load(dir, spec.Options{KnownProviders: providers.Names()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	pl, diags := plan.New(lab, &state.State{}, plan.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := New()
	if d := p.Configure(context.Background(), lab.Providers["bhyve.box"].Body); d.HasErrors() {
		t.Fatal(d)
	}
	p.signer, p.poll = srv.ClientSigner(), 0
	p.dial = func(_ context.Context, name string, c ssh.Config) (guest.Transport, error) {
		if !strings.HasPrefix(c.Host, "198.18.0.") || c.User != "root" {
			t.Errorf("dial %s with %+v", name, c)
		}
		return nopTransport{name}, nil
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	res := &memResults{}
	e := &engine.Engine{State: &state.State{}, Store: memStore{}, Providers: map[string]providers.Provider{"bhyve.box": p},
		OS:      func(string) (guest.OS, error) { return okOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return okRunner{}, nil },
		Results: res, RunID: "r1", Lab: lab.Name}
	return e, pl, h, res
}

func TestEngineApply(t *testing.T) {
	for _, backend := range []string{"vm-bhyve", "bhyve"} {
		t.Run(backend, func(t *testing.T) {
			e, pl, h, res := engineFor(t, backend)
			if _, err := e.Apply(context.Background(), context.Background(), pl); err != nil {
				t.Fatal(err)
			}
			if len(res.recs) != 2 || res.recs[0].Observed.Server.Interface != "vtnet0" {
				t.Errorf("records: %+v", res.recs)
			}
			if left := h.left(); len(left) != 0 || len(e.State.Resources) != 0 {
				t.Errorf("left: host %v, state %+v", left, e.State.Resources)
			}
		})
	}
}

// TestEngineBhyveExits: bhyve dies while the guest boots; apply fails
// naming the VM and the log, and teardown leaves nothing.
func TestEngineBhyveExits(t *testing.T) {
	e, pl, h, _ := engineFor(t, "bhyve")
	// Machine names carry a hash of the owner and address (plan.Plan):
	// lab-e-cc-<6 hex>-c is the client.
	h.failOn(`^pgrep -F /var/run/lab-e-cc-[0-9a-f]{6}-c\.pid`, "", 1)
	_, err := e.Apply(context.Background(), context.Background(), pl)
	if err == nil || !regexp.MustCompile(`lab-e-cc-[0-9a-f]{6}-c`).MatchString(err.Error()) || !strings.Contains(err.Error(), "bhyve exited") {
		t.Fatalf("apply: %v", err)
	}
	if left := h.left(); len(left) != 0 || len(e.State.Resources) != 0 {
		t.Errorf("left: host %v, state %+v", left, e.State.Resources)
	}
}
