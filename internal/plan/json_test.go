package plan

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
)

const routedLab = `
lab "routed" {}
template "t" {
  source = "img"
  ssh {
    user             = "root"
    private_key_file = "~/.ssh/k"
  }
}
pair "fw" {
  template = template.t
  via      = template.t
  vcpu     = 2
  memory   = "1GiB"
  nic { model = "virtio" }
  link { mtu = 9000 }
}
experiment "e" {
  pairs  = [pair.fw]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  router { firewall = "" }
  iperf3 { duration = "2s" }
}
`

// TestJSONKeysSnakeCase: every key of a plan's JSON is snake_case.
func TestJSONKeysSnakeCase(t *testing.T) {
	p, diags := New(load(t, routedLab), &state.State{Lineage: "l"}, Options{Now: time.Unix(0, 0)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if !snake.MatchString(k) {
					t.Errorf("%s.%s is not snake_case", path, k)
				}
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path+"[]", e)
			}
		}
	}
	walk("plan", v)
}

// TestSaveLoadRoundTrip: a saved plan reads back as it was made.
func TestSaveLoadRoundTrip(t *testing.T) {
	for _, src := range []string{routedLab, twoShapes} {
		p, diags := New(load(t, src), &state.State{Lineage: "l", Serial: 2}, Options{Now: time.Unix(0, 0)})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		path := filepath.Join(t.TempDir(), "p.plan")
		if err := p.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Groups, p.Groups) || !reflect.DeepEqual(got.Actions, p.Actions) {
			a, _ := json.Marshal(p.Groups)
			b, _ := json.Marshal(got.Groups)
			t.Errorf("round trip changed the plan:\nsaved  %s\nloaded %s", a, b)
		}
	}
}
