package freebsd_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
)

// TestRejectsInjection: no command runs when any string field could
// smuggle in shell syntax or options.
func TestRejectsInjection(t *testing.T) {
	evil := []string{"; rm -rf /", "$(x)", "a\nb", "`x`", "a|b", "a&b", "a>b", "'x'", `"x"`, "-x", "a\\b", "a\x00b", "a\tb", ""}
	mk := func(v string) []guest.Settings {
		return []guest.Settings{
			{Offloads: map[string]bool{v: true}},
			{CongestionControl: v + "x"},
			{Sysctl: map[string]string{v: "1"}},
			{Sysctl: map[string]string{"net.inet.tcp.sendspace": v}},
			{Loss: &guest.Loss{Percent: 1, Method: v}},
			// A firewall value is a pf.conf body uploaded as a file, never
			// a word of a command: TestPFBodyIsNeverAWord checks it.
		}
	}
	for _, v := range evil {
		for i, s := range mk(v) {
			if v == "" && i == 1 {
				continue // "x" is a valid algorithm name
			}
			f := newFake(nil)
			if err := freebsd.New().Apply(context.Background(), f, "vtnet0", s); err == nil || f.Log.Len() > 0 {
				t.Errorf("value %q in case %d: err=%v, commands run:\n%s", v, i, err, f.Log.String())
			}
			if _, err := freebsd.New().Observe(context.Background(), f, "vtnet0", s); err == nil || f.Log.Len() > 0 {
				t.Errorf("Observe: value %q in case %d accepted", v, i)
			}
		}
		f := newFake(nil)
		if err := freebsd.New().Apply(context.Background(), f, v, guest.Settings{MTU: 1500}); err == nil || f.Log.Len() > 0 {
			t.Errorf("interface %q accepted", v)
		}
		if _, err := freebsd.New().Observe(context.Background(), f, v, guest.Settings{}); err == nil || f.Log.Len() > 0 {
			t.Errorf("Observe: interface %q accepted", v)
		}
	}
	for _, iface := range []string{"eth0:1", "VTNET0", "vtnet", "0vtnet", "lagg0.100", "vtnet0 ", "vtnet00000"} {
		if err := freebsd.Validate(iface, guest.Settings{}); err == nil {
			t.Errorf("interface %q accepted", iface)
		}
	}
	for _, s := range []guest.Settings{{MTU: 71}, {MTU: 65536}, {MTU: -1}, {Loss: &guest.Loss{Percent: 101, Method: "random"}},
		{Loss: &guest.Loss{Percent: -1, Method: "random"}}, {Sysctl: map[string]string{"../../etc/passwd": "1"}},
		{Sysctl: map[string]string{"net.inet.tcp.sendspace": "-x"}}, {Sysctl: map[string]string{"kern": "1"}}} {
		if err := freebsd.Validate("vtnet0", s); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// TestRefusalsNameGuestAndReason: settings FreeBSD has no equivalent for
// are refused with an error that names the guest and says why.
func TestRefusalsNameGuestAndReason(t *testing.T) {
	tests := []struct {
		s    guest.Settings
		want []string
	}{
		{guest.Settings{Offloads: map[string]bool{"gro": false}}, []string{"pair.fbsd.client", "gro", "no GRO toggle"}},
		{guest.Settings{Offloads: map[string]bool{"gso": true}}, []string{"gso", "no GSO toggle"}},
		{guest.Settings{Loss: &guest.Loss{Percent: 1, Method: "nth"}}, []string{"nth", `loss_method = "random"`}},
		{guest.Settings{Loss: &guest.Loss{Percent: 1, Method: "netem"}}, []string{"netem is Linux's"}},
		{guest.Settings{Firewall: "include \"/etc/pf.conf\""}, []string{"pair.fbsd.client", "firewall (pf)", `"include" is not allowed`}},
		{guest.Settings{Firewall: "keep_state"}, []string{"firewall (pf)", "not a pf preset", "keep-state"}},
	}
	for _, tc := range tests {
		err := freebsd.New().Apply(context.Background(), newFake(nil), "vtnet0", tc.s)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %v lacks %q", tc.s, err, w)
			}
		}
	}
	// No loss asked: the method does not matter (the spec's default is nth).
	if err := freebsd.Validate("vtnet0", guest.Settings{Loss: &guest.Loss{Percent: 0, Method: "nth"}}); err != nil {
		t.Errorf("0%% nth loss refused: %v", err)
	}
}

// TestRefusesRings: ring sizes are boot-time loader tunables on FreeBSD
// (iflib(4) override_nrxds/override_ntxds); Apply refuses them before any
// command runs and names the tunables of the interface.
func TestRefusesRings(t *testing.T) {
	for _, tt := range []struct {
		iface string
		s     guest.Settings
		want  []string
	}{
		{"vmx0", guest.Settings{RxRing: 1024}, []string{"rx_ring/tx_ring on vmx0", "dev.vmx.0.iflib.override_nrxds", "dev.vmx.0.iflib.override_ntxds", "loader.conf"}},
		{"ix12", guest.Settings{TxRing: 2048}, []string{"dev.ix.12.iflib.override_ntxds"}},
		{"vtnet0", guest.Settings{RxRing: 256, TxRing: 256}, []string{"vtnet(4)", "virtqueue", "rx_queue_size"}},
	} {
		f := newFake(nil)
		err := freebsd.New().Apply(context.Background(), f, tt.iface, tt.s)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v does not say %q", tt.iface, err, w)
			}
		}
		if f.Log.Len() > 0 {
			t.Errorf("%s: commands ran:\n%s", tt.iface, f.Log.String())
		}
	}
	if h := freebsd.RingHint(""); !strings.Contains(h, "dev.<driver>.<unit>.iflib.override_nrxds") {
		t.Errorf("generic hint: %s", h)
	}
}
