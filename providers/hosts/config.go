package hosts

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Host is one existing machine as the spec describes it.
type Host struct {
	// Address is where SSH reaches the machine.
	Address string `hcl:"address"`
	Port    int    `hcl:"port,optional"`
	User    string `hcl:"user,optional"`
	// PrivateKeyFile authenticates (default ~/.ssh/id_ed25519).
	PrivateKeyFile string `hcl:"private_key_file,optional"`
	// HostKey pins the SSH host key (authorized_keys line); empty trusts
	// the key seen on first contact, which is then recorded in state.
	HostKey string `hcl:"host_key,optional"`
	// Iface is the benchmark interface (required).
	Iface string `hcl:"iface"`
	// BenchAddress is the address the benchmark uses (default Address).
	BenchAddress string `hcl:"bench_address,optional"`
	// CPUs pins the benchmark processes ("0", "2,3", "0-3").
	CPUs string `hcl:"cpus,optional"`
	// ProxyJump reaches the machine through jump hosts, as OpenSSH's
	// ProxyJump: "[user@]host[:port][,…]".
	ProxyJump string `hcl:"proxy_jump,optional"`
	// Agent offers ssh-agent's keys ($SSH_AUTH_SOCK) before the key file.
	Agent bool `hcl:"agent,optional"`
	// KnownHostsFile checks host keys (the machine's when host_key is
	// not set, and the jump hosts') against an OpenSSH known_hosts file.
	KnownHostsFile string `hcl:"known_hosts_file,optional"`
	// Iface2 is a router's second interface, towards the client (Iface is
	// towards the server); required in a router block, refused elsewhere.
	Iface2 string `hcl:"iface2,optional"`
}

// Roles are the blocks a hosts provider takes, one machine each.
var Roles = []string{"server", "client", "router"}

var (
	ifaceRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$`)
	hostRE  = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$`)
	cpusRE  = regexp.MustCompile(`^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`)
)

var schema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "server"}, {Type: "client"}, {Type: "router"}}}

// decode reads the provider block: at most one block per role, at least
// one block. A block with one role is one end of a cross pair (the other
// end another hosts block's or another provider's machine); the plan
// refuses a template of this provider in a role it has no block for.
func decode(body hcl.Body, ec *hcl.EvalContext) (map[string]*Host, hcl.Diagnostics) {
	content, diags := body.Content(schema)
	out := map[string]*Host{}
	if len(content.Blocks) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing server or client block",
			Detail:  "The hosts provider needs a server or client block (or both, and a router block for a routed pair), each naming an existing machine.",
			Subject: body.MissingItemRange().Ptr()})
	}
	for _, role := range Roles {
		blocks := content.Blocks.OfType(role)
		switch {
		case len(blocks) == 0:
			continue
		case len(blocks) > 1:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate " + role + " block",
				Detail: fmt.Sprintf("Only one %s block is allowed; the first is at %s.", role, blocks[0].DefRange), Subject: blocks[1].DefRange.Ptr()})
			continue
		}
		h, d := decodeHost(blocks[0], ec)
		diags = append(diags, d...)
		if d := checkIface2(blocks[0], role, h); d != nil {
			diags = append(diags, d)
		}
		out[role] = h
	}
	return out, diags
}

func decodeHost(b *hcl.Block, ec *hcl.EvalContext) (*Host, hcl.Diagnostics) {
	h := &Host{}
	diags := gohcl.DecodeBody(b.Body, ec, h)
	if diags.HasErrors() {
		return h, diags
	}
	// An error about an attribute the block does not set points at the
	// block's header, which names the role.
	cd := providers.NewBlockConfigDiags(b)
	cd.Append(diags)
	if !validHost(h.Address) {
		cd.Errorf("address", "Invalid address", "address must be an IP address or a host name, got %q.", h.Address)
	}
	login := machine.Login{Port: h.Port, User: h.User, PrivateKeyFile: h.PrivateKeyFile, HostKey: h.HostKey}
	for _, p := range labssh.CheckLogin(&login) {
		cd.Errorf(p.Attr, p.Summary, "%s", p.Detail)
	}
	h.Port, h.User, h.PrivateKeyFile = login.Port, login.User, login.PrivateKeyFile
	if !ifaceRE.MatchString(h.Iface) {
		cd.Errorf("iface", "Invalid interface", "iface must be an interface name (letters, digits, _ . : @ -; at most 15), got %q.", h.Iface)
	}
	benchAttr := "bench_address"
	if h.BenchAddress == "" {
		h.BenchAddress, benchAttr = h.Address, "address"
	}
	if net.ParseIP(h.BenchAddress) == nil {
		cd.Errorf(benchAttr, "Invalid benchmark address", "bench_address (default: address) must be an IP address, got %q.", h.BenchAddress)
	}
	if h.ProxyJump != "" {
		if _, err := (labssh.Config{}).WithProxyJump(h.ProxyJump, nil); err != nil {
			cd.Errorf("proxy_jump", "Invalid proxy_jump", "proxy_jump must be \"[user@]host[:port]\", hops separated by commas: %v.", err)
		}
	}
	if strings.ContainsAny(h.KnownHostsFile, "\x00\n\r") {
		cd.Errorf("known_hosts_file", "Invalid known_hosts_file", "known_hosts_file must be a path without control characters.")
	}
	if h.CPUs != "" && !cpusRE.MatchString(h.CPUs) {
		cd.Errorf("cpus", "Invalid CPU list", "cpus must be a list like \"0\", \"2,3\" or \"0-3\", got %q.", h.CPUs)
	}
	return h, cd.Diags()
}

// checkIface2 requires a router's second interface, and refuses one on an
// end, which has a single benchmark interface.
func checkIface2(b *hcl.Block, role string, h *Host) *hcl.Diagnostic {
	attrs, _ := b.Body.JustAttributes()
	switch {
	case role == "router" && h.Iface2 == "":
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing iface2",
			Detail:  "A router block needs iface (its interface towards the server) and iface2 (towards the client).",
			Subject: b.DefRange.Ptr()}
	case role != "router" && h.Iface2 != "":
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unexpected iface2",
			Detail:  "iface2 is a router's interface towards the client; a " + role + " has one benchmark interface, iface.",
			Subject: attrs["iface2"].NameRange.Ptr()}
	case h.Iface2 != "" && !ifaceRE.MatchString(h.Iface2):
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid interface",
			Detail:  fmt.Sprintf("iface2 must be an interface name (letters, digits, _ . : @ -; at most 15), got %q.", h.Iface2),
			Subject: attrs["iface2"].Expr.Range().Ptr()}
	}
	return nil
}

func validHost(s string) bool {
	return net.ParseIP(s) != nil || hostRE.MatchString(s) && !strings.Contains(s, "..")
}

// cpuList expands "0-2,4" to [0 1 2 4] (cpus was checked by decode; a
// range is cut at 4096 CPUs).
func cpuList(s string) []int {
	if s == "" {
		return nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, _ := strconv.Atoi(lo)
		b := a
		if isRange {
			b, _ = strconv.Atoi(hi)
		}
		for c := a; c <= b && c-a < 4096; c++ {
			out = append(out, c)
		}
	}
	return out
}
