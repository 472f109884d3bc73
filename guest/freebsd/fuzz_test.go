package freebsd_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/guest/freebsd"
)

// FuzzParseIfconfig feeds `ifconfig -m` parsing arbitrary text, seeded
// with recorded output: it never panics, and what it accepts has an MTU.
func FuzzParseIfconfig(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*ifconfig*.txt")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("vtnet0: flags=8843<UP> metric 0 mtu -5\n\toptions=<>\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		ifc, err := freebsd.ParseIfconfig(out)
		if err == nil && ifc.MTU <= 0 {
			t.Fatalf("accepted MTU %d", ifc.MTU)
		}
	})
}
