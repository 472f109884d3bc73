package bhyve

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
	_ "github.com/lab-bench/lab/providers/hosts" // the netperf example's back end
)

// TestExamplesPlan plans the examples this package came with and checks
// that they ask their seed's question: the bhyve one (seed 003) passes the
// tap-offload check (it toggles no offload on), sends from FreeBSD with
// the post's loss rule (TCP to port 5001, every 100th packet) on the Linux
// receiver, with and without loss; the hosts ones (seed 004) sweep the
// client's socket buffers (first poster) and netperf's message size on
// FreeBSD and Linux with each OS's congestion control (second poster).
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
	// 2 experiments (no loss, 1 % loss) x 2 algorithms x (1 warm-up + 5).
	if len(p.Groups) != 1 || len(runs) != 24 {
		t.Fatalf("%d groups, %d runs", len(p.Groups), len(runs))
	}
	g := p.Groups[0]
	if g.Client.Template.OS != "freebsd" || g.Server.Template.OS != "linux" {
		t.Errorf("sender %s, receiver %s", g.Client.Template.OS, g.Server.Template.OS)
	}
	// The runs come in random blocks (plan's run order): the loss
	// experiment's NewReno cell is found by its settings, not its place.
	lossExp := runs[len(runs)-1].Experiment
	var r plan.Run
	for _, x := range runs {
		if x.Experiment == lossExp && x.Spec.Client.CongestionControl == "newreno" {
			r = x
		}
	}
	if r.Spec.Client.CongestionControl != "newreno" || r.Spec.Server.Loss == nil || r.Spec.Server.Loss.Method != "nth" ||
		r.Spec.Server.Loss.Port != 5001 || r.Spec.Bench.Port != 5001 ||
		r.Spec.Bench.Tool != "iperf2" || r.Spec.Bench.Length != "1M" || !r.Spec.Bench.Enhanced {
		t.Errorf("last run: %+v", r.Spec)
	}
	if first := runs[0].Spec; first.Server.Loss != nil {
		t.Errorf("the no-loss experiment has loss %+v", first.Server.Loss)
	}

	// Seed 004, first poster: the client's socket buffers are swept by
	// sysctl, the server's stay at 8192, netperf keeps its default message.
	_, p = load("hosts-netperf-sockbuf")
	var bufs []string
	for _, r := range byCell(p.Runs()) {
		if r.Repeat == 1 {
			bufs = append(bufs, r.Spec.Client.Sysctl["net.inet.tcp.sendspace"]+"/"+r.Spec.Client.Sysctl["net.inet.tcp.recvspace"])
		}
		if r.Spec.Server.Sysctl["net.inet.tcp.sendspace"] != "8192" || r.Spec.Bench.Netperf.SendSize != "" || r.Spec.Bench.Port != 22113 {
			t.Fatalf("server buffers %+v, send size %q, port %d", r.Spec.Server.Sysctl, r.Spec.Bench.Netperf.SendSize, r.Spec.Bench.Port)
		}
	}
	if strings.Join(bufs, " ") != "128/128 1024/1024 8192/8192" || p.Groups[0].Server.Template.OS != "freebsd" {
		t.Errorf("client buffers %v", bufs)
	}

	// Seed 004, second poster: netperf's default and -m 64…4096, iperf
	// plain/-d/-P 2, on a FreeBSD pair (NewReno) and a Linux pair (Reno).
	_, p = load("hosts-netperf-msgsize")
	sizes := map[string][]string{}
	for _, r := range byCell(p.Runs()) {
		wantCC := map[string]string{"bsd": "newreno", "linux": "reno"}[r.Pair]
		if r.Spec.Client.CongestionControl != wantCC || r.Spec.Server.CongestionControl != wantCC {
			t.Errorf("%s/%s: congestion control %q", r.Experiment, r.Pair, r.Spec.Client.CongestionControl)
		}
		if r.Repeat == 1 && r.Spec.Bench.Tool == "netperf" {
			sizes[r.Pair] = append(sizes[r.Pair], r.Spec.Bench.Netperf.SendSize)
		}
	}
	for _, pair := range []string{"bsd", "linux"} {
		if got := strings.Join(sizes[pair], ","); got != ",64,128,256,512,1024,2048,4096" {
			t.Errorf("%s message sizes %q (the first is netperf's default)", pair, got)
		}
	}
	if len(p.Groups) != 2 {
		t.Errorf("%d groups, want 2 (one per OS pair)", len(p.Groups))
	}
}

// byCell is runs in matrix order (each pair's cells as the matrix lists
// them), whatever order the plan runs them in.
func byCell(runs []plan.Run) []plan.Run {
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b plan.Run) int { return cmp.Compare(a.CellIndex, b.CellIndex) })
	return out
}
