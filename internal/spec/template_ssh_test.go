package spec

import (
	"testing"

	"github.com/lab-bench/lab/machine"
)

// TestTemplateSSHBlock: a template's ssh {} block speaks the vocabulary of
// the hosts and bhyve provider blocks (agent, known_hosts_file,
// ssh_config, proxy_jump) and becomes the guests' machine.Login.
func TestTemplateSSHBlock(t *testing.T) {
	cases := []struct {
		name, block string
		want        machine.Login
	}{
		{"pinned key only", `user = "debian"
    private_key_file = "~/.ssh/lab"`, machine.Login{Port: 22, User: "debian", PrivateKeyFile: "~/.ssh/lab"}},
		{"agent and known_hosts", `agent = true
    known_hosts_file = "~/.ssh/known_hosts"`, machine.Login{Port: 22, Agent: true, KnownHostsFile: "~/.ssh/known_hosts"}},
		{"agent as string", `agent = "true"`, machine.Login{Port: 22, Agent: true}},
		{"jump through the hypervisor", `user = "root"
    proxy_jump = "admin@kvm1.example.net:2222"`, machine.Login{Port: 22, User: "root", ProxyJump: "admin@kvm1.example.net:2222"}},
		{"jump chain", `proxy_jump = "bastion,admin@kvm1"`, machine.Login{Port: 22, ProxyJump: "bastion,admin@kvm1"}},
		// ssh_config fills what the block leaves unset: no default port.
		{"ssh_config leaves port to it", `ssh_config = "~/.ssh/config"`, machine.Login{SSHConfig: "~/.ssh/config"}},
		{"ssh_config with port", `ssh_config = "~/.ssh/config"
    port = 2200`, machine.Login{Port: 2200, SSHConfig: "~/.ssh/config"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "lab \"x\" {}\ntemplate \"t\" {\n  ssh {\n    " + tc.block + "\n  }\n}\n" +
				"pair \"p\" { template = template.t }\nexperiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n"
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
			if diags.HasErrors() {
				t.Fatal(writeDiags(t, l, diags))
			}
			if got := *l.Templates["t"].SSH; got != tc.want {
				t.Errorf("login = %+v\nwant    %+v", got, tc.want)
			}
		})
	}
}
