package lockfile

import (
	"reflect"
	"testing"
)

// FuzzParse feeds the lock file parser arbitrary text: it never panics,
// and what it accepts renders to a file that parses back the same.
func FuzzParse(f *testing.F) {
	l := New()
	l.Machines["pair.veth.server"] = Machine{Template: "debian-12", Kernel: "6.1.0-18-amd64", Driver: "veth"}
	l.Tools["iperf3"] = "iperf 3.12"
	f.Add(l.Render())
	f.Add([]byte(`machine "a" { kernel = "x" }` + "\n" + `tool "t" { version = "1" }` + "\n"))
	f.Add([]byte(`tool "t" {}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, diags := parse(FileName, src)
		if diags.HasErrors() {
			return
		}
		back, diags := parse(FileName, l.Render())
		if diags.HasErrors() {
			t.Fatalf("rendered lock does not parse: %v\n%s", diags, l.Render())
		}
		if !reflect.DeepEqual(l, back) {
			t.Fatalf("round trip: %+v, then %+v", l, back)
		}
	})
}
