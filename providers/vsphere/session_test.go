package vsphere

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/vim25/soap"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestIPWaitCancelled: a Ctrl-C (or another pair's failure) during the
// wait for the guest's address is an error wrapping ctx's, and the VM is
// named for teardown — not a machine "created" with no address (govmomi's
// WaitForUpdatesEx returns nil when its context is cancelled).
func TestIPWaitCancelled(t *testing.T) {
	sim := vspheretest.Start(t)
	p := New()
	p.Getenv = sim.Getenv
	if d := p.Configure(context.Background(), body(t, `datacenter = "DC0"
cluster = "DC0_C0"
network = "VM Network"
ip_timeout = "30s"
extra_config = { "SET.guest.ipAddress" = "169.254.3.4" }`)); d.HasErrors() {
		t.Fatal(d)
	}
	defer p.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	m := testMachine("cancel", "p", "server", vspheretest.FreeBSD, "freebsd")
	go func() {
		// Cancel once the VM is powered on and the wait has begun.
		for ctx.Err() == nil {
			for _, n := range sim.VMs() {
				if n == m.Name && sim.Calls("PowerOnVM_Task") > 0 {
					time.Sleep(300 * time.Millisecond)
					cancel()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	in, err := p.Create(ctx, m)
	cancel()
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), m.Name+": wait for the IP address: ") {
		t.Fatalf("Create = %+v, %v; want context.Canceled naming the VM", machine.EndpointOf(in), err)
	}
	if in.ID == "" {
		t.Fatal("the VM is not named for teardown")
	}
	if err := p.Delete(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentPendingDeletes: destroying pending machines (name only)
// of one lab at once must not fail because another delete removed a VM
// or the folder between listing and reading (ManagedObjectNotFound).
func TestConcurrentPendingDeletes(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	owner := machine.Owner{Lab: "race", Workspace: testWS}
	for round := 0; round < 3; round++ {
		var pending []machine.Instance
		for i := 0; i < 6; i++ {
			m := testMachine("race", fmt.Sprintf("p%d", i), "server", vspheretest.FreeBSD, "freebsd")
			sim.PlantVM(t, FolderName(owner), m.Name, owner.Tag(m.Address))
			pending = append(pending, machine.Instance{Address: m.Address, Kind: "machine", Name: m.Name, Owner: owner})
		}
		var wg sync.WaitGroup
		errs := make([]error, len(pending))
		for i, in := range pending {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = p.Delete(ctx, in) }()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: delete %s: %v", round, pending[i].Name, err)
			}
		}
		if left := labVMs(sim, "race"); len(left) != 0 {
			t.Errorf("round %d: left %v", round, left)
		}
	}
}

// TestLoginOncePerCommand counts Login calls on the simulator: a whole
// apply of three pairs and its teardown logs in once, and a wrong password
// makes exactly one failed login however many resources the command
// touches (vsphere.local locks an account after five).
func TestLoginOncePerCommand(t *testing.T) {
	tests := []struct {
		name     string
		env      func(sim *vspheretest.Sim) map[string]string
		wantErr  string
		maxLogin int
	}{
		{"right password", func(sim *vspheretest.Sim) map[string]string { return sim.Env() }, "", 1},
		{"wrong password", func(sim *vspheretest.Sim) map[string]string {
			e := sim.Env()
			e["GOVC_PASSWORD"] = "wrong-Secret-42"
			return e
		}, "lab stops at the first failed login", 1},
		{"password in GOVC_URL", func(sim *vspheretest.Sim) map[string]string {
			return map[string]string{"GOVC_URL": strings.Replace(sim.URL, "://", "://"+sim.Username+":"+sim.Password+"@", 1)}
		}, "", 1},
		{"wrong password in GOVC_URL", func(sim *vspheretest.Sim) map[string]string {
			return map[string]string{"GOVC_URL": strings.Replace(sim.URL, "://", "://"+sim.Username+":wrong-Secret-42@", 1)}
		}, "lab stops at the first failed login", 1},
		{"no credentials", func(sim *vspheretest.Sim) map[string]string {
			return map[string]string{"GOVC_URL": sim.URL}
		}, "set GOVC_USERNAME and GOVC_PASSWORD", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := vspheretest.Start(t)
			env := tc.env(sim)
			lab, pl := loadLab(t, pairsLab("login", 3))
			e, p, _ := newEngine(t, sim, lab)
			p.Getenv = func(k string) string { return env[k] }
			if d := p.Configure(context.Background(), lab.Providers["vsphere.sim"].Body); d.HasErrors() {
				t.Fatal(d)
			}
			sim.ResetCalls()
			_, err := e.Apply(context.Background(), context.Background(), pl)
			if derr := e.Destroy(context.Background(), e.State.Owner("login"), true); derr != nil && tc.wantErr == "" {
				t.Errorf("destroy: %v", derr)
			}
			if cerr := p.Close(context.Background()); cerr != nil && tc.wantErr == "" {
				t.Errorf("close: %v", cerr)
			}
			if n := sim.Calls("Login"); n > tc.maxLogin || tc.wantErr == "" && n != 1 {
				t.Errorf("%d Login calls in one command, want at most %d", n, tc.maxLogin)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), "wrong-Secret-42") || sim.Password != "" && strings.Contains(err.Error(), sim.Password)) {
				t.Errorf("error shows a password: %v", err)
			}
		})
	}
}

// TestTemplateNotFound: a wrong template name is an error listing the
// templates that exist — at plan (CheckTemplate), in TemplateID and at
// clone — and CheckTemplate dials nothing without credentials.
func TestTemplateNotFound(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	m := testMachine("tn", "p", "server", "debian-13-tmpl", "linux")
	want := "template debian-13-tmpl: no such VM or template in datacenter DC0; its templates are: debian-12-tmpl, freebsd-14.2-tmpl"
	_, cerr := p.Create(ctx, m)
	_, terr := p.TemplateID(ctx, m)
	for name, err := range map[string]error{"CheckTemplate": p.CheckTemplate(ctx, m), "TemplateID": terr, "Create": cerr} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	if err := p.CheckTemplate(ctx, testMachine("tn", "p", "server", vspheretest.Debian, "linux")); err != nil {
		t.Errorf("existing template: %v", err)
	}
	offline := New()
	offline.Getenv = func(k string) string { return map[string]string{"GOVC_URL": sim.URL}[k] }
	if d := offline.Configure(ctx, body(t, baseBlock)); d.HasErrors() {
		t.Fatal(d)
	}
	sim.ResetCalls()
	if err := offline.CheckTemplate(ctx, m); err != nil || sim.Calls("RetrieveServiceContent") != 0 {
		t.Errorf("without credentials: %v, %d calls", err, sim.Calls("RetrieveServiceContent"))
	}
}

// TestClusterWithoutDRS: a cluster with DRS off cannot place a clone; the
// create says to name a host (and works when one is named).
func TestClusterWithoutDRS(t *testing.T) {
	sim := vspheretest.Start(t)
	sim.DisableDRS(t)
	ctx := context.Background()
	for _, tc := range []struct{ block, wantErr string }{
		{"", "cluster DC0_C0 has DRS off, so vCenter cannot choose a host for the clone: set host"},
		{`host = "DC0_C0_H0"`, ""},
	} {
		p := configured(t, sim, tc.block)
		in, err := p.Create(ctx, testMachine("drs", "p", "server", vspheretest.FreeBSD, "freebsd"))
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%q: Create = %v, want %q", tc.block, err, tc.wantErr)
		}
		if err == nil {
			if in.Attrs["host"] == "" {
				t.Errorf("no host recorded: %v", in.Attrs)
			}
			if err := p.Delete(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestTLSTrust: a vCenter whose certificate the system does not trust is
// refused, and reached when GOVC_THUMBPRINT or GOVC_TLS_CA_CERTS vouches
// for it.
func TestTLSTrust(t *testing.T) {
	sim := vspheretest.StartTLS(t)
	caFile, err := sim.Server.CertificateFile()
	if err != nil {
		t.Fatal(err)
	}
	thumb := soap.ThumbprintSHA1(sim.Server.Certificate())
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"untrusted", nil, "the certificate is not trusted: set GOVC_TLS_CA_CERTS"},
		{"thumbprint", map[string]string{"GOVC_THUMBPRINT": thumb}, ""},
		{"CA file", map[string]string{"GOVC_TLS_CA_CERTS": caFile}, ""},
		{"wrong thumbprint", map[string]string{"GOVC_THUMBPRINT": strings.Repeat("AB:", 19) + "AB"}, "the certificate is not trusted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.Env()
			for k, v := range tc.env {
				env[k] = v
			}
			p := New()
			p.Getenv = func(k string) string { return env[k] }
			if d := p.Configure(context.Background(), body(t, baseBlock+"insecure = false\nnetwork = \"VM Network\"\n")); d.HasErrors() {
				t.Fatal(d)
			}
			defer p.Close(context.Background())
			_, err := p.TemplateID(context.Background(), testMachine("tls", "p", "server", vspheretest.FreeBSD, "freebsd"))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("TemplateID = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestDRSOverride: with drs_override, each VM gets a DRS override
// "disabled" once powered on (DRS will not migrate it during a run), and
// the override goes with the VM.
func TestDRSOverride(t *testing.T) {
	sim := vspheretest.Start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		block string
		want  bool
	}{{"", false}, {"drs_override = true", true}} {
		p := configured(t, sim, tc.block)
		in, err := p.Create(ctx, testMachine("drso", "p", "server", vspheretest.FreeBSD, "freebsd"))
		if err != nil {
			t.Fatal(err)
		}
		if got := sim.DRSOverride(in.ID); got != tc.want || tc.want && in.Attrs["drs_override"] == "" {
			t.Errorf("%q: override %v (attrs %v), want %v", tc.block, got, in.Attrs, tc.want)
		}
		if err := p.Delete(ctx, in); err != nil {
			t.Fatal(err)
		}
		if sim.DRSOverride(in.ID) {
			t.Errorf("%q: override left after delete", tc.block)
		}
	}
}

// TestWrongNameLogsInOnce: a provider block naming a datacenter that does
// not exist fails every call with the name, after one login (it used to
// log out and in again for every resource).
func TestWrongNameLogsInOnce(t *testing.T) {
	sim := vspheretest.Start(t)
	p := New()
	p.Getenv = sim.Getenv
	if d := p.Configure(context.Background(), body(t, `datacenter = "DC9"
network = "VM Network"`)); d.HasErrors() {
		t.Fatal(d)
	}
	sim.ResetCalls()
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		_, lerr := p.Link(ctx, linkSpec(fmt.Sprint(i), 9000))
		_, cerr := p.Create(ctx, testMachine("dc9", fmt.Sprint(i), "server", vspheretest.FreeBSD, "freebsd"))
		for _, err := range []error{lerr, cerr} {
			if err == nil || !strings.Contains(err.Error(), `datacenter "DC9"`) {
				t.Errorf("err = %v, want it to name datacenter DC9", err)
			}
		}
	}
	if err := p.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
	if n, out := sim.Calls("Login"), sim.Calls("Logout"); n != 1 || out != 1 {
		t.Errorf("%d Login and %d Logout calls, want 1 each", n, out)
	}
}

// TestKeepTogether: with keep_together, the second VM of a pair adds a
// mandatory VM–VM affinity rule with both before it powers on; the rule
// goes with the pair. It cannot be combined with drs_override.
func TestKeepTogether(t *testing.T) {
	sim := vspheretest.Start(t)
	ctx := context.Background()
	p := configured(t, sim, "keep_together = true")
	s, err := p.Create(ctx, testMachine("kt", "p", "server", vspheretest.FreeBSD, "freebsd"))
	if err != nil {
		t.Fatal(err)
	}
	if r := sim.Rules(); len(r) != 0 {
		t.Errorf("rules after one VM: %v", r)
	}
	c, err := p.Create(ctx, testMachine("kt", "p", "client", vspheretest.FreeBSD, "freebsd"))
	if err != nil {
		t.Fatal(err)
	}
	rules := sim.Rules()
	if got := rules["lab kt-p"]; len(rules) != 1 || len(got) != 2 || !(got[0] == s.ID && got[1] == c.ID || got[0] == c.ID && got[1] == s.ID) {
		t.Errorf("rules %v, want lab kt-p with %s and %s", rules, s.ID, c.ID)
	}
	for _, in := range []machine.Instance{s, c} {
		if err := p.Delete(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if r := sim.Rules(); len(r) != 0 {
		t.Errorf("rules left: %v", r)
	}
	q := New()
	q.Getenv = sim.Getenv
	if d := q.Configure(ctx, body(t, baseBlock+"keep_together = true\ndrs_override = true\n")); !strings.Contains(d.Error(), "choose drs_override or keep_together") {
		t.Errorf("both: %v", d)
	}
}
