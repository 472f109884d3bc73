package bhyve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestTeamFootprint: the bhyve host by the name the block gives it
// (runners naming it alike agree whatever their user or port), by its
// pinned key's fingerprint too when host_key is set, so a runner that
// pins it meets one that does not; a loopback host is this machine.
func TestTeamFootprint(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	hostKey := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sshPub)))
	fp := gossh.FingerprintSHA256(sshPub)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"by name", Config{Host: "bsd1.example.net", User: "root", Port: 22}, "bhyve host bsd1.example.net"},
		{"another runner's user and port", Config{Host: "BSD1.example.net.", User: "ci", Port: 2222}, "bhyve host bsd1.example.net"},
		{"pinned key", Config{Host: "bsd1.example.net", HostKey: hostKey}, "bhyve host bsd1.example.net, ssh host " + fp},
		{"loopback", Config{Host: "127.0.0.1"}, providers.ThisMachine},
		{"localhost", Config{Host: "localhost"}, providers.ThisMachine},
	}
	for _, tc := range tests {
		p := &Provider{cfg: tc.cfg}
		got, err := p.TeamFootprint(context.Background(), machine.Instance{Address: "pair.p.server"})
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: team footprint %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
}
