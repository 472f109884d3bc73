package spec

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// bigLab has a 10 × 10 × 10 × 10 = 10,000-cell matrix.
const bigLab = `lab "big" {}
variable "base" { default = 1400 }
template "t" {}
pair "p" { template = template.t }
experiment "big" {
  pairs  = [pair.p]
  matrix = {
    mtu     = [for i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : var.base + i * 100]
    streams = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    cc      = ["cubic", "bbr", "reno", "htcp", "vegas", "westwood", "dctcp", "bic", "illinois", "hybla"]
    gro     = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  }
  guest {
    mtu                = matrix.mtu
    gro                = matrix.gro % 2 == 0
    tso                = false
    congestion_control = matrix.cc
    sysctl             = { "net.core.rmem_max" = matrix.mtu * 1000 }
    loss               = "0.1%"
  }
  client {
    mtu = matrix.mtu - 100
  }
  hardware {
    vcpu = matrix.streams > 4 ? 2 : 1
  }
  iperf3 {
    duration = "${matrix.streams}s"
    omit     = "0s"
    parallel = matrix.streams
  }
}
`

// cells expands a matrix into every combination, the way plan does.
func cells(dims []Dimension) []map[string]cty.Value {
	out := []map[string]cty.Value{{}}
	for _, d := range dims {
		var next []map[string]cty.Value
		for _, c := range out {
			for _, v := range d.Values {
				m := make(map[string]cty.Value, len(c)+1)
				for k, x := range c {
					m[k] = x
				}
				m[d.Name] = v
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

func loadBig(t testing.TB) *Experiment {
	l, diags := LoadFiles("", map[string][]byte{"big.hcl": []byte(bigLab)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return l.Experiments[0]
}

func TestEval10000Cells(t *testing.T) {
	e := loadBig(t)
	all := cells(e.Matrix)
	if len(all) != 10000 {
		t.Fatalf("%d cells", len(all))
	}
	start := time.Now()
	for _, c := range all {
		spec, diags := e.Eval(c)
		if diags.HasErrors() {
			t.Fatalf("%v: %v", c, diags)
		}
		mtu, _ := c["mtu"].AsBigFloat().Int64()
		streams, _ := c["streams"].AsBigFloat().Int64()
		if spec.Server.MTU != int(mtu) || spec.Client.MTU != int(mtu)-100 || spec.Bench.Parallel != int(streams) ||
			spec.Bench.Duration != time.Duration(streams)*time.Second || spec.Bench.CongestionControl != c["cc"].AsString() {
			t.Fatalf("%v: %+v", c, spec)
		}
	}
	// How fast is BenchmarkEval10000Cells' question (make bench), not a
	// test's: a loaded machine would make a timed test fail for no fault.
	t.Logf("10,000 cells evaluated in %v", time.Since(start))
}

// evalTarget is how long evaluating 10,000 cells may take: a plan of a
// big matrix stays interactive.
const evalTarget = 2 * time.Second

// BenchmarkEval10000Cells evaluates every cell of a 10,000-cell matrix
// and prints the time against evalTarget as a ratio, with the load
// average (make bench).
func BenchmarkEval10000Cells(b *testing.B) {
	e := loadBig(b)
	all := cells(e.Matrix)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for _, c := range all {
			if _, diags := e.Eval(c); diags.HasErrors() {
				b.Fatal(diags)
			}
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	load, _ := os.ReadFile("/proc/loadavg")
	b.ReportMetric(per.Seconds()/evalTarget.Seconds(), "ratio-to-target")
	b.Logf("10,000 cells in %v: %.3f of the %v target (load average %s)", per, per.Seconds()/evalTarget.Seconds(), evalTarget, strings.TrimSpace(string(load)))
}

func TestEvalMissingValue(t *testing.T) {
	e := loadBig(t)
	_, diags := e.Eval(map[string]cty.Value{"mtu": cty.NumberIntVal(1500)})
	if !diags.HasErrors() || diags[0].Subject == nil {
		t.Fatalf("diags = %v", diags)
	}
}

func BenchmarkEval(b *testing.B) {
	e := loadBig(b)
	all := cells(e.Matrix)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, diags := e.Eval(all[i%len(all)]); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	src := map[string][]byte{"big.hcl": []byte(bigLab)}
	for i := 0; i < b.N; i++ {
		if _, diags := LoadFiles("", src, Options{}); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// TestEvalConcurrent: Eval may be called from several goroutines (its
// per-attribute cache is locked); run with -race.
func TestEvalConcurrent(t *testing.T) {
	e := loadBig(t)
	all := cells(e.Matrix)
	done := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := g; i < len(all); i += 4 {
				if _, diags := e.Eval(all[i]); diags.HasErrors() {
					done <- diags
					return
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
