package spec

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/lab-bench/lab/internal/golden"
)

// writeDiags renders diagnostics for test failures.
func writeDiags(t *testing.T, l *Lab, diags hcl.Diagnostics) string {
	t.Helper()
	var b bytes.Buffer
	if err := l.WriteDiagnostics(&b, diags, 0, false); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func loadValid(t testing.TB, name string, opts Options) *Lab {
	t.Helper()
	l, diags := Load(filepath.Join("testdata", "valid", name), opts)
	if diags.HasErrors() {
		var b bytes.Buffer
		l.WriteDiagnostics(&b, diags, 0, false)
		t.Fatalf("Load(%s):\n%s", name, b.String())
	}
	return l
}

func TestLoadValid(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "valid"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			l := loadValid(t, d.Name(), Options{KnownProviders: []string{"local", "vsphere"}})
			got, err := json.MarshalIndent(goldenView(t, l), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, filepath.Join("testdata", "golden", d.Name()+".json"), got)
		})
	}
}

// goldenLab is a JSON view of a decoded lab, with the first and last cell
// of every experiment evaluated.
type goldenLab struct {
	Name        string
	Description string
	Variables   map[string]json.RawMessage
	Sensitive   map[string]bool
	Providers   []string
	Templates   map[string]*Template
	Pairs       map[string]*Pair
	Experiments []goldenExperiment
	Published   []goldenPublished `json:",omitempty"`
}

// goldenPublished is a published table with its cells' selectors rendered.
type goldenPublished struct {
	Name, Source, Hardware, Tool, Side, Metric, MetricKey, Experiment string
	Match                                                             map[string]string
	Cells                                                             []goldenCell
}

type goldenCell struct {
	Where map[string]string
	Value float64
	Line  int
}

type goldenExperiment struct {
	Name, Description string
	Pairs             []string
	Matrix            []goldenDim
	Repeat, Warmup    int
	Expects           []goldenExpect
	Cells             int
	FirstCell         CellSpec
	LastCell          CellSpec
}

type goldenDim struct {
	Name   string
	Values []string
}

type goldenExpect struct {
	Name        string
	Where       map[string]string
	Throughput  *Absolute
	Retransmits *Absolute
	Ratio       *Ratio
	Published   *PublishedCheck `json:",omitempty"`
	Order       *PublishedCheck `json:",omitempty"`
}

func goldenView(t *testing.T, l *Lab) goldenLab {
	g := goldenLab{Name: l.Name, Description: l.Description, Variables: map[string]json.RawMessage{},
		Sensitive: l.Sensitive, Templates: l.Templates, Pairs: l.Pairs}
	for n, v := range l.Variables {
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			t.Fatal(err)
		}
		g.Variables[n] = b
	}
	g.Providers = slices.Sorted(maps.Keys(l.Providers))
	for _, e := range l.Experiments {
		ge := goldenExperiment{Name: e.Name, Description: e.Description, Pairs: e.Pairs,
			Repeat: e.Repeat, Warmup: e.Warmup, Cells: 1}
		first, last := map[string]cty.Value{}, map[string]cty.Value{}
		for _, d := range e.Matrix {
			gd := goldenDim{Name: d.Name}
			for _, v := range d.Values {
				gd.Values = append(gd.Values, displayValue(v))
			}
			ge.Matrix = append(ge.Matrix, gd)
			ge.Cells *= len(d.Values)
			first[d.Name], last[d.Name] = d.Values[0], d.Values[len(d.Values)-1]
		}
		for _, x := range e.Expects {
			gx := goldenExpect{Name: x.Name, Where: map[string]string{}, Throughput: x.Throughput,
				Retransmits: x.Retransmits, Ratio: x.Ratio, Published: x.Published, Order: x.Order}
			for k, v := range x.Where {
				gx.Where[k] = displayValue(v)
			}
			ge.Expects = append(ge.Expects, gx)
		}
		var diags hcl.Diagnostics
		ge.FirstCell, diags = e.Eval(first)
		if diags.HasErrors() {
			t.Fatalf("Eval first cell: %s", writeDiags(t, l, diags))
		}
		ge.LastCell, diags = e.Eval(last)
		if diags.HasErrors() {
			t.Fatalf("Eval last cell: %s", writeDiags(t, l, diags))
		}
		g.Experiments = append(g.Experiments, ge)
	}
	for _, n := range slices.Sorted(maps.Keys(l.Published)) {
		p := l.Published[n]
		gp := goldenPublished{Name: p.Name, Source: p.Source, Hardware: p.Hardware, Tool: p.Tool, Side: p.Side,
			Metric: p.Metric, MetricKey: p.MetricKey(), Experiment: p.Experiment, Match: p.Match}
		for _, c := range p.Cells {
			gc := goldenCell{Where: map[string]string{}, Value: c.Value, Line: c.Range.Start.Line}
			for k, v := range c.Where {
				gc.Where[k] = displayValue(v)
			}
			gp.Cells = append(gp.Cells, gc)
		}
		g.Published = append(g.Published, gp)
	}
	return g
}

func TestQuickstartValues(t *testing.T) {
	l := loadValid(t, "quickstart", Options{})
	if l.Name != "quickstart" || len(l.Files) != 1 || len(l.Hash) != 64 {
		t.Fatalf("lab = %q, %d files, hash %q", l.Name, len(l.Files), l.Hash)
	}
	if p := l.Providers[implicitProvider]; p == nil || p.Body == nil {
		t.Fatalf("implicit provider missing: %v", l.Providers)
	}
	if tm := l.Templates["host"]; tm.Provider != implicitProvider || tm.OS != "linux" {
		t.Errorf("template = %+v", tm)
	}
	if p := l.Pairs["veth"]; p.Server != "host" || p.Client != "host" {
		t.Errorf("pair = %+v", p)
	}
	e := l.Experiments[0]
	if got := strings.Join(dimNames(e.Matrix), ","); got != "mtu,gro,streams" {
		t.Errorf("matrix order = %s, want the written order mtu,gro,streams", got)
	}
	c, diags := e.Eval(map[string]cty.Value{"mtu": cty.NumberIntVal(9000), "gro": cty.True, "streams": cty.NumberIntVal(2)})
	if diags.HasErrors() {
		t.Fatal(writeDiags(t, l, diags))
	}
	if c.Server.MTU != 9000 || c.Client.MTU != 9000 || !c.Client.Offloads["gro"] || !c.Server.Strict {
		t.Errorf("settings = %+v / %+v", c.Server, c.Client)
	}
	if c.Bench.Tool != "iperf3" || c.Bench.Parallel != 2 || c.Bench.Duration != 10*time.Second || c.Bench.Omit != time.Second {
		t.Errorf("bench = %+v", c.Bench)
	}
}

func TestCrossOSValues(t *testing.T) {
	l := loadValid(t, "cross-os", Options{KnownProviders: []string{"vsphere"}})
	if l.Templates["debian"].Provider != "vsphere.dc1" || l.Templates["freebsd"].OS != "freebsd" {
		t.Errorf("templates: %+v %+v", l.Templates["debian"], l.Templates["freebsd"])
	}
	if s := l.Templates["debian"].SSH; s.User != "debian" || s.Port != 2222 {
		t.Errorf("ssh = %+v", s)
	}
	p := l.Pairs["mixed"]
	if p.Server != "freebsd" || p.Client != "debian" || p.MemoryMiB != 2048 || p.VCPU != 2 || p.LinkMTU != 9000 ||
		p.NIC.Model != "vmxnet3" || p.NIC.Queues != 2 || p.NIC.Host["tso4"] || !p.NIC.Host["guest_csum"] {
		t.Errorf("pair = %+v", p)
	}
	c, diags := l.Experiments[0].Eval(map[string]cty.Value{"lro": cty.True, "vcpu": cty.NumberIntVal(4)})
	if diags.HasErrors() {
		t.Fatal(writeDiags(t, l, diags))
	}
	// server{} wins over guest{}; sysctl maps merge.
	if c.Server.CongestionControl != "new_reno" || c.Client.CongestionControl != "cubic" {
		t.Errorf("cc = %q/%q", c.Server.CongestionControl, c.Client.CongestionControl)
	}
	if len(c.Server.Sysctl) != 3 || len(c.Client.Sysctl) != 2 || c.Client.Sysctl["net.inet.tcp.sendspace"] != "65536" {
		t.Errorf("sysctl = %v / %v", c.Server.Sysctl, c.Client.Sysctl)
	}
	if c.Server.Loss != nil || c.Client.Loss == nil || c.Client.Loss.Percent != 0.5 || c.Client.Loss.Method != "netem" {
		t.Errorf("loss = %+v / %+v", c.Server.Loss, c.Client.Loss)
	}
	// reverse: the server sends, so the benchmark picks its algorithm.
	if c.Bench.CongestionControl != "new_reno" || c.VCPU != 4 || c.MemoryMiB != 4096 || c.Server.Strict {
		t.Errorf("cell = %+v", c)
	}
}

func TestVariablePrecedence(t *testing.T) {
	dir := t.TempDir()
	varFile := filepath.Join(dir, "x.labvars")
	if err := os.WriteFile(varFile, []byte("mtu_big = 8000\ncc = \"reno\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := loadValid(t, "variables", Options{
		Env:      []string{"LAB_VAR_mtu_big=7000", "LAB_VAR_mtu_small=1400", "LAB_VAR_cc=bbr", "LAB_VAR_other=1"},
		VarFiles: []string{varFile},
		Vars:     []string{"cc=dctcp", "streams=[8]"},
	})
	want := map[string]cty.Value{
		"mtu_big": cty.NumberIntVal(8000), "mtu_small": cty.NumberIntVal(1400), "cc": cty.StringVal("dctcp"),
		"streams": cty.ListVal([]cty.Value{cty.NumberIntVal(8)}),
	}
	for n, w := range want {
		if !l.Variables[n].RawEquals(w) {
			t.Errorf("var.%s = %#v, want %#v", n, l.Variables[n], w)
		}
	}
	if !l.Sensitive["token"] || l.Description != "MTU 1400 vs 8000" {
		t.Errorf("sensitive = %v, description = %q", l.Sensitive, l.Description)
	}
	c, diags := l.Experiments[0].Eval(map[string]cty.Value{"mtu": cty.NumberIntVal(8000), "streams": cty.NumberIntVal(8)})
	if diags.HasErrors() {
		t.Fatal(writeDiags(t, l, diags))
	}
	if c.Server.CongestionControl != "dctcp" || c.Server.Sysctl["net.core.rmem_max"] != "800000" || c.Bench.Parallel != 8 {
		t.Errorf("cell = %+v", c)
	}
}

func TestVariableErrors(t *testing.T) {
	src := map[string][]byte{"main.hcl": []byte(smallLab + `
variable "n" {
  type = number
  validation {
    condition     = var.n > 10
    error_message = "n must exceed 10."
  }
}
`)}
	cases := []struct {
		opts Options
		want string
	}{
		{Options{}, "No value for required variable"},
		{Options{Vars: []string{"n=5"}}, "Invalid value for variable"},
		{Options{Vars: []string{"n=abc"}}, "Invalid value for variable"},
		{Options{Vars: []string{"m=5", "n=11"}}, "Value for undeclared variable"},
		{Options{Vars: []string{"n"}}, "Invalid -var option"},
		{Options{Env: []string{"LAB_VAR_n=[1"}}, "Invalid value for variable"},
	}
	for _, c := range cases {
		l, diags := LoadFiles("", src, c.opts)
		if len(diags) != 1 || !strings.Contains(diags[0].Summary, c.want) || diags[0].Subject == nil {
			t.Errorf("%+v: got\n%s\nwant one %q", c.opts, writeDiags(t, l, diags), c.want)
		}
	}
	l, diags := LoadFiles("", src, Options{Vars: []string{"n=11"}})
	if diags.HasErrors() || !l.Variables["n"].RawEquals(cty.NumberIntVal(11)) {
		t.Errorf("n=11: %v %v", diags, l.Variables)
	}
}

func TestEnvAndFileFunctions(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cc.txt"), []byte("bbr\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(`
lab "f" { description = env("WHO") }
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  guest { congestion_control = trimspace(file("cc.txt")) }
  server { congestion_control = env("NOPE") == "" ? "cubic" : "reno" }
  iperf3 {}
}
`), 0o644)
	l, diags := Load(dir, Options{Env: []string{"WHO=me"}})
	if diags.HasErrors() {
		t.Fatal(writeDiags(t, l, diags))
	}
	c, _ := l.Experiments[0].Eval(nil)
	if l.Description != "me" || c.Client.CongestionControl != "bbr" || c.Server.CongestionControl != "cubic" {
		t.Errorf("description %q, cell %+v", l.Description, c)
	}
}

func TestWriteDiagnostics(t *testing.T) {
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte("lab \"x\" {\n  colour = 1\n}\n")}, Options{})
	out := writeDiags(t, l, diags)
	for _, want := range []string{"Unsupported argument", "main.hcl line 2", "colour = 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestLoadEmptyDir(t *testing.T) {
	l, diags := Load(t.TempDir(), Options{})
	if l == nil || l.Files == nil || !diags.HasErrors() {
		t.Fatalf("lab %v diags %v", l, diags)
	}
}
