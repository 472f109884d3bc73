package freebsd_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/guest"
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

// FuzzCheckPF feeds the pf.conf check arbitrary text, seeded with every
// preset's pf.conf: it never panics, and a refusal points inside the body.
func FuzzCheckPF(f *testing.F) {
	for _, p := range freebsd.PFPresets {
		f.Add(freebsd.PFConf(p, []string{"lo0", "vtnet0"}))
		f.Add(p.Name)
	}
	f.Add("pass all\ninclude \"/etc/pf.conf\"")
	f.Add("pass all label \"x")
	f.Fuzz(func(t *testing.T, body string) {
		err := freebsd.CheckPF(body)
		var re *guest.RulesetError
		if errors.As(err, &re) && (re.Line < 1 || re.Column < 1 || re.Offset < 0 || re.Offset > len(body)) {
			t.Fatalf("refusal outside the body: %+v", re)
		}
	})
}
