package plan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

func load(t testing.TB, src string) *spec.Lab {
	t.Helper()
	lab, diags := spec.LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, spec.Options{})
	if diags.HasErrors() {
		var b bytes.Buffer
		lab.WriteDiagnostics(&b, diags, 100, false)
		t.Fatalf("load: %s", b.String())
	}
	return lab
}

const twoShapes = `
lab "shapes" {}
template "t" {}
pair "p" {
  template = template.t
  vcpu = 1
}
experiment "e" {
  pairs  = [pair.p]
  matrix = { vcpu = [1, 2], mtu = [1500, 9000] }
  repeat = 2
  warmup = 1
  guest { mtu = matrix.mtu }
  hardware { vcpu = matrix.vcpu }
  iperf3 { duration = "5s" }
}
`

func TestRender(t *testing.T) {
	quick, err := os.ReadFile("../../examples/quickstart/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	// A state with a kept link/server in the old shape and a pair the spec dropped.
	kept := &state.State{Lineage: "l1", Serial: 4, Resources: []state.Resource{
		{Instance: machine.Instance{Address: "pair.p.link", Kind: "link"}, Status: state.Created, Shape: "x"},
		{Instance: machine.Instance{Address: "pair.gone.server", Kind: "machine"}, Status: state.Created},
	}}
	// What a vSphere provider's PlanLink reports (providers/vsphere
	// netplan.go): a vSwitch whose MTU is set, one whose MTU is unset (0,
	// running at vSphere's default 1500), a switch held at another MTU,
	// and an own switch to add.
	changes := []providers.NetworkChange{
		{Link: "pair.p.link", Host: "esx1", Switch: "vSwitch0", Change: "mtu", From: 1500, To: 9000},
		{Link: "pair.p.link", Host: "esx2", Switch: "vSwitch0", Change: "mtu", From: 1500, FromUnset: true, To: 9000},
		{Link: "pair.q.link", Switch: "dvs1", Change: "mtu", From: 9000, To: 4000, Note: "held at MTU 9000 by pair.p.link: apply will refuse this link"},
		{Link: "pair.r.link", Host: "esx1", Switch: "lab-sw-0123456789", Change: "add", To: 9000, Note: "no uplink; port group lab-pg-0123456789"},
	}
	tests := []struct {
		name    string
		src     string
		st      *state.State
		changes []providers.NetworkChange
	}{
		{"quickstart", string(quick), &state.State{}, nil},
		{"shapes-with-state", twoShapes, kept, nil},
		{"network-changes", twoShapes, &state.State{}, changes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := New(load(t, tc.src), tc.st, Options{Now: now, OrderSeed: 23})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p.NetworkChanges = tc.changes
			var b bytes.Buffer
			if err := p.Render(&b, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), b.String())
		})
	}
}

func TestShapesAndRuns(t *testing.T) {
	p, diags := New(load(t, twoShapes), &state.State{}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(p.Groups) != 2 {
		t.Fatalf("%d groups, want 2 (vcpu 1 and 2)", len(p.Groups))
	}
	if p.Groups[0].Address != "pair.p" || !strings.HasPrefix(p.Groups[1].Address, "pair.p[") {
		t.Errorf("group addresses %s %s", p.Groups[0].Address, p.Groups[1].Address)
	}
	for _, g := range p.Groups {
		// 2 mtu cells × (1 warmup + 2 repeats), MTU never splits a group.
		if len(g.Runs) != 6 {
			t.Errorf("%s: %d runs, want 6", g.Address, len(g.Runs))
		}
	}
	if p.Groups[1].Server.VCPU != 2 || p.Groups[1].Server.Name == p.Groups[0].Server.Name {
		t.Errorf("second shape: %+v", p.Groups[1].Server)
	}
}

func TestDiff(t *testing.T) {
	lab := load(t, twoShapes)
	first, _ := New(lab, &state.State{}, Options{})
	g := first.Groups[0]
	created := func(addr, shape, status string) state.Resource {
		return state.Resource{Instance: machine.Instance{Address: addr, Kind: "machine"}, Shape: shape, Status: status}
	}
	tests := []struct {
		name string
		res  []state.Resource
		want map[string]string // address → op
	}{
		{"empty state creates", nil, map[string]string{g.Server.Address: OpCreate, g.Link.Address: OpCreate}},
		{"same shape kept", []state.Resource{created(g.Server.Address, g.Shape, state.Created)}, map[string]string{g.Server.Address: OpKeep}},
		{"other shape replaced", []state.Resource{created(g.Server.Address, "old", state.Created)}, map[string]string{g.Server.Address: OpReplace}},
		{"pending replaced", []state.Resource{created(g.Server.Address, g.Shape, state.Pending)}, map[string]string{g.Server.Address: OpReplace}},
		{"tainted replaced", []state.Resource{created(g.Server.Address, g.Shape, state.Tainted)}, map[string]string{g.Server.Address: OpReplace}},
		{"dropped deleted", []state.Resource{created("pair.old.server", "", state.Created)}, map[string]string{"pair.old.server": OpDelete}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := New(lab, &state.State{Resources: tc.res}, Options{})
			got := map[string]string{}
			for _, a := range p.Actions {
				got[a.Address] = a.Op
			}
			for addr, op := range tc.want {
				if got[addr] != op {
					t.Errorf("%s: %q, want %q (all: %v)", addr, got[addr], op, got)
				}
			}
		})
	}
}

func TestSavedPlanFreshness(t *testing.T) {
	lab := load(t, twoShapes)
	st := &state.State{Lineage: "a", Serial: 3}
	p, _ := New(lab, st, Options{})
	path := filepath.Join(t.TempDir(), "plan")
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("plan file mode %v", fi.Mode().Perm())
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Runs()) != len(p.Runs()) || loaded.Runs()[0].Spec.Bench.Duration != 5*time.Second {
		t.Errorf("round trip lost runs")
	}
	tests := []struct {
		name    string
		st      *state.State
		hash    string
		wantErr string
	}{
		{"fresh", &state.State{Lineage: "a", Serial: 3}, lab.Hash, ""},
		{"serial moved", &state.State{Lineage: "a", Serial: 4}, lab.Hash, "serial"},
		{"other lineage", &state.State{Lineage: "b", Serial: 3}, lab.Hash, "lineage"},
		{"spec changed", &state.State{Lineage: "a", Serial: 3}, "other", "changed"},
	}
	for _, tc := range tests {
		err := loaded.CheckFresh(tc.st, tc.hash)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing plan loaded")
	}
}

// bigMatrix is a 10,000-cell lab: 10 × 10 × 10 × 10.
func bigMatrix() string {
	vals := func(base int) string {
		var s []string
		for i := 0; i < 10; i++ {
			s = append(s, fmt.Sprint(base+i))
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	return fmt.Sprintf(`
lab "big" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = %s, streams = %s, a = %s, b = %s }
  guest {
    mtu    = matrix.mtu
    sysctl = { "net.core.rmem_max" = matrix.a * 1000 + matrix.b }
  }
  iperf3 { parallel = matrix.streams }
}`, vals(1500), vals(1), vals(1), vals(1))
}

// BenchmarkPlan10k measures `lab plan`'s core on a 10,000-cell matrix:
// decode, expand, diff and render. Target: < 1 s and < 200 MB.
func BenchmarkPlan10k(b *testing.B) {
	src := bigMatrix()
	var ms runtime.MemStats
	for i := 0; i < b.N; i++ {
		start := time.Now()
		lab := load(b, src)
		p, diags := New(lab, &state.State{}, Options{})
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		var buf bytes.Buffer
		p.Render(&buf, RenderOptions{})
		if n := len(p.Runs()); n != 10000 {
			b.Fatalf("%d runs", n)
		}
		el := time.Since(start)
		runtime.ReadMemStats(&ms)
		b.ReportMetric(el.Seconds(), "s/plan")
		b.ReportMetric(el.Seconds()/1.0, "ratio-to-1s-target")
		b.ReportMetric(float64(ms.Sys)/1e6, "MB-sys")
		fmt.Printf("plan (in process): 10000 cells in %.3fs = ratio %.3f to the 1 s target; %.0f MB from the OS\n", el.Seconds(), el.Seconds(), float64(ms.Sys)/1e6)
	}
}

func TestRunOrder(t *testing.T) {
	tests := []struct {
		order string
		want  string // cell key and repeat of each run
	}{
		{`order = "interleaved"`, "1500w1 9000w1 1500#1 9000#1 1500#2 9000#2"}, // the default before random blocks
		{`order = "sequential"`, "1500w1 1500#1 1500#2 9000w1 9000#1 9000#2"},
		{"", "9000w1 1500w1 9000#1 1500#1 1500#2 9000#2"}, // random blocks by default (seed 23)
	}
	for _, tc := range tests {
		src := strings.Replace(twoShapes, `matrix = { vcpu = [1, 2], mtu = [1500, 9000] }`, `matrix = { mtu = [1500, 9000] }
  `+tc.order, 1)
		src = strings.Replace(src, "  hardware { vcpu = matrix.vcpu }\n", "", 1)
		p, diags := New(load(t, src), &state.State{}, Options{OrderSeed: 23})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var got []string
		for _, r := range p.Runs() {
			tag := fmt.Sprintf("#%d", r.Repeat)
			if r.Warmup {
				tag = fmt.Sprintf("w%d", r.Repeat)
			}
			got = append(got, strings.TrimPrefix(r.CellKey, "mtu=")+tag)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("order %q: %s, want %s", tc.order, strings.Join(got, " "), tc.want)
		}
	}
}
