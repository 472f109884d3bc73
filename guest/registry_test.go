package guest

import (
	"context"
	"strings"
	"testing"
)

// TestRegistry: the default OS answers for "" and, through For, for a name
// nothing registered; NewOS names the known OSes, the default first; a
// second registration under a name is refused.
func TestRegistry(t *testing.T) {
	saved := drivers
	defer func() { drivers = saved }()
	drivers = map[string]Driver{}
	zeta, alpha := complete("zeta"), complete("alpha")
	zeta.Default = true
	Register(zeta)
	Register(alpha)

	if d, ok := Lookup(""); !ok || d.Name != "zeta" {
		t.Errorf(`Lookup("") = %q, %v; want the default, zeta`, d.Name, ok)
	}
	if _, ok := Lookup("beta"); ok {
		t.Error(`Lookup("beta") found an OS nobody registered`)
	}
	if d := For("beta"); d.Name != "zeta" {
		t.Errorf(`For("beta") = %q, want the default`, d.Name)
	}
	if d := For("alpha"); d.Kernel != "ALPHA" {
		t.Errorf(`For("alpha") = %+v`, d)
	}
	if Registered("") || !Registered("alpha") {
		t.Error(`Registered: "" must not count, alpha must`)
	}
	if got := strings.Join(Names(), ","); got != "zeta,alpha" {
		t.Errorf("Names = %s, want the default first", got)
	}
	if _, err := NewOS("beta"); err == nil || err.Error() != `no driver for guest os "beta" yet (known: zeta, alpha)` {
		t.Errorf("NewOS(beta) = %v", err)
	}
	gamma := complete("gamma")
	gamma.Default = true
	for _, d := range []Driver{complete("alpha"), gamma, {Name: "delta", Kernel: "Delta"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", d)
				}
			}()
			Register(d)
		}()
	}
}

// TestForWithoutDefault: a program without a guest/<os> import fails
// with a message saying which import it lacks.
func TestForWithoutDefault(t *testing.T) {
	saved := drivers
	defer func() { drivers = saved }()
	drivers = map[string]Driver{}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "guest/linux") {
			t.Errorf("For with nothing registered: %v", r)
		}
	}()
	For("linux")
}

// TestRegisterNamesMissingFields: an OS package that leaves out a required
// field fails at its init, naming the field.
func TestRegisterNamesMissingFields(t *testing.T) {
	d := complete("delta")
	d.NICs.Static, d.CPU.MHz = nil, nil
	defer func() {
		if r := recover(); r != "guest: OS delta registers no NICs.Static, CPU.MHz" {
			t.Errorf("Register: %v", r)
		}
	}()
	Register(d)
}

// complete is a Driver with every required field, doing nothing.
func complete(name string) Driver {
	return Driver{Name: name, Kernel: strings.ToUpper(name), New: func() OS { return nil },
		NICs: NICs{List: Cmd{Argv: []string{"list"}}, ByMAC: func(string, string) string { return "" },
			Static: func(string, string) []Cmd { return nil }, Name: func(NICSlot) string { return "" },
			Hostname: func(string) string { return "" }},
		Processes: Processes{Listen: func(int) Cmd { return Cmd{} }, Pin: func(string) []string { return nil }},
		CPU: CPU{Times: func(context.Context, Transport) (map[int]CPUTimes, error) { return nil, nil },
			MHz: func(context.Context, Transport) (float64, error) { return 0, nil }},
		Tools: Tools{InstallHint: func(string, string) string { return "" }},
	}
}
