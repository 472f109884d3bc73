package hosts

import (
	"context"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestFootprint: a machine's footprint is its SSH host key's fingerprint,
// whatever name reaches it — so two names of one machine meet and two
// machines do not — with this machine added over loopback; a machine
// without a recorded key is everything. The key is the one a real SSH
// server presented at Create.
func TestFootprint(t *testing.T) {
	s := sshtest.NewServer(t, host)
	p := serverProvider(t, s, "eth1", "")
	created, err := p.Create(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	key, _, _, _, err := gossh.ParseAuthorizedKey([]byte(s.HostKey()))
	if err != nil {
		t.Fatal(err)
	}
	id := "ssh host " + gossh.FingerprintSHA256(key)
	other := sshtest.NewServer(t, host).HostKey()
	named := func(name, hostKey string) machine.Instance {
		return machine.Instance{Address: "pair.bm.client", Endpoint: providers.SSHEndpoint(name, machine.Login{User: "root", HostKey: hostKey})}
	}
	tests := []struct {
		name string
		in   machine.Instance
		want string
	}{
		{"created over loopback", created, providers.ThisMachine + ", " + id},
		{"the same machine by a DNS name", named("bm1.example.net", s.HostKey()), id},
		{"the same machine by another address", named("198.51.100.7", s.HostKey()), id},
		{"no key recorded", named("bm1.example.net", ""), "everything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fp, err := p.Footprint(context.Background(), tc.in)
			if fp.String() != tc.want || (err != nil) != (tc.want == "everything") {
				t.Errorf("footprint %q (%v), want %q", fp, err, tc.want)
			}
		})
	}
	a, _ := p.Footprint(context.Background(), named("bm1.example.net", s.HostKey()))
	b, _ := p.Footprint(context.Background(), named("bm1.example.net", other))
	c, _ := p.Footprint(context.Background(), named("10.0.0.9", s.HostKey()))
	if a.Meets(b) || !a.Meets(c) {
		t.Errorf("one name, two machines meet: %v; two names, one machine meet: %v", a.Meets(b), a.Meets(c))
	}
}
