package bhyve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/providers"
)

// TestJumpViaHost: with jump_via_host, Connect dials a guest through the
// bhyve host, logged in to as the provider block says (here through an
// ssh_config alias for the host); without it, directly.
func TestJumpViaHost(t *testing.T) {
	for _, jump := range []bool{true, false} {
		p, _, srv := newHost(t, `switch = "public"
address_discovery = "static"
addresses = { "cc.server" = "198.18.0.2" }
jump_via_host = `+map[bool]string{true: "true", false: "false"}[jump])
		// The host is reached through an alias: ssh_config gives its port.
		cfgFile := filepath.Join(t.TempDir(), "config")
		if err := os.WriteFile(cfgFile, []byte("Host "+p.cfg.Host+"\n  Port 2222\n  User admin\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		p.cfg.SSHConfig, p.cfg.User = cfgFile, "" // as decode leaves an unset user with ssh_config
		var got labssh.Config
		p.dial = func(_ context.Context, _ string, c labssh.Config) (guest.Transport, error) {
			got = c
			return nopTransport{"g"}, nil
		}
		ctx := context.Background()
		link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Pair: "cc", Name: "t-cc"})
		if err != nil {
			t.Fatal(err)
		}
		in, err := p.Create(ctx, testMachine("server", "freebsd", link))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := p.Connect(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		tr.Close()
		switch {
		case !jump && got.Jump != nil:
			t.Errorf("jump_via_host = false dialled through %+v", got.Jump)
		case jump && got.Jump == nil:
			t.Error("jump_via_host = true dialled directly")
		case jump && (got.Jump.Host != srv.Host() || got.Jump.Port != srv.Port() || got.Jump.User != "admin" || got.Jump.KnownHostKey != srv.HostKey()):
			// The block's port wins over the alias's; its user was left
			// empty, so the alias's applies; the pinned host key stays.
			t.Errorf("jump %+v", *got.Jump)
		}
		if got.Host != "198.18.0.2" {
			t.Errorf("guest dialled at %q", got.Host)
		}
	}
}

// TestSSHConfigLeavesUnsetToAlias: with ssh_config, port, user and
// private_key_file left out of the block are not defaulted, so the alias
// supplies them; set ones win.
func TestSSHConfigLeavesUnsetToAlias(t *testing.T) {
	p, d := configure(t, "host = \"bhyve1\"\nssh_config = \"~/.ssh/config\"\nuser = \"ops\"\nagent = true\nknown_hosts_file = \"~/.ssh/known_hosts\"")
	if d.HasErrors() {
		t.Fatal(d)
	}
	if p.cfg.Port != 0 || p.cfg.PrivateKeyFile != "" || p.cfg.User != "ops" || !p.cfg.Agent || p.cfg.KnownHostsFile == "" {
		t.Errorf("config %+v", p.cfg)
	}
	p, _ = configure(t, "host = \"bhyve1\"")
	if p.cfg.Port != 22 || p.cfg.User != "root" {
		t.Errorf("defaults without ssh_config: %+v", p.cfg)
	}
}
