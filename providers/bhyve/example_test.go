package bhyve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/providers"
	_ "github.com/lab-bench/lab/providers/hosts" // the netperf example's back end
	"github.com/lab-bench/lab/spec"
	"github.com/lab-bench/lab/state"
)

// TestExamplesPlan plans the two examples this package came with and
// checks what they would do: the bhyve one passes the tap-offload check
// (it toggles no offload on), sends from FreeBSD with the loss on the
// Linux receiver; the hosts one sweeps netperf send sizes with 8 KB
// socket buffers on FreeBSD.
func TestExamplesPlan(t *testing.T) {
	load := func(name string) (*spec.Lab, *plan.Plan) {
		dir := filepath.Join("..", "..", "examples", name)
		lab, diags := spec.Load(dir, spec.Options{KnownProviders: providers.Names(), VarFiles: []string{filepath.Join(dir, "test.labvars")}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p, diags := plan.New(lab, &state.State{}, plan.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return lab, p
	}

	lab, p := load("bhyve-cubic-loss")
	prov := New()
	if d := prov.Configure(providers.WithEvalContext(context.Background(), lab.EvalContext()), lab.Providers["bhyve.box"].Body); d.HasErrors() {
		t.Fatal(d)
	}
	caps := func(string) (providers.Capabilities, bool) { return prov.Capabilities(), true }
	if diags := plan.CheckCapabilities(p, lab, caps); diags.HasErrors() {
		t.Errorf("the example fails its own provider's capabilities: %v", diags)
	}
	runs := p.Runs()
	if len(p.Groups) != 1 || len(runs) != 12 {
		t.Fatalf("%d groups, %d runs", len(p.Groups), len(runs))
	}
	g := p.Groups[0]
	if g.Client.Template.OS != "freebsd" || g.Server.Template.OS != "linux" {
		t.Errorf("sender %s, receiver %s", g.Client.Template.OS, g.Server.Template.OS)
	}
	r := runs[len(runs)-1]
	if r.Spec.Client.CongestionControl != "newreno" || r.Spec.Server.Loss == nil || r.Spec.Server.Loss.Method != "nth" ||
		r.Spec.Bench.Tool != "iperf2" || r.Spec.Bench.Length != "1M" || !r.Spec.Bench.Enhanced {
		t.Errorf("last run: %+v", r.Spec)
	}

	_, p = load("hosts-netperf-msgsize")
	var sizes []string
	for _, r := range p.Runs() {
		if r.Repeat == 1 {
			sizes = append(sizes, r.Spec.Bench.Netperf.SendSize)
		}
		if r.Spec.Server.Sysctl["net.inet.tcp.sendspace"] != "8192" || r.Spec.Client.Sysctl["net.inet.tcp.recvspace"] != "8192" {
			t.Fatalf("socket buffers: %+v", r.Spec.Server.Sysctl)
		}
	}
	if strings.Join(sizes, " ") != "64 128 256 512 1024 2048 4096 8192" || p.Groups[0].Server.Template.OS != "freebsd" {
		t.Errorf("sizes %v", sizes)
	}
}
