package plan

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

const crossLab = `
lab "x" {}
provider "hosts" "a" {}
provider "hosts" "b" {}
template "a" { provider = provider.hosts.a }
template "b" { provider = provider.hosts.b }
pair "ab" {
  server = template.a
  client = template.b
}
pair "aa" { template = template.a }
experiment "e" {
  pairs = [pair.ab, pair.aa]
  iperf3 { duration = "5s" }
}
`

// TestCrossPairPlan: a pair whose ends come from two providers is one
// group whose client, and the client's side of the link, the client's
// provider makes; a pair of one provider is unchanged.
func TestCrossPairPlan(t *testing.T) {
	p, diags := New(load(t, crossLab), &state.State{}, Options{Now: time.Unix(0, 0)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	byPair := map[string]*Group{}
	for _, g := range p.Groups {
		byPair[g.Pair] = g
	}
	ab, aa := byPair["ab"], byPair["aa"]
	if !ab.Cross() || ab.ClientLink == nil || ab.Router != nil {
		t.Fatalf("pair ab: cross %v, client link %v", ab.Cross(), ab.ClientLink)
	}
	for addr, want := range map[string]string{
		ab.Link.Address: "hosts.a", ab.Server.Address: "hosts.a",
		ab.ClientLink.Address: "hosts.b", ab.Client.Address: "hosts.b",
	} {
		if got := ab.ProviderKeyFor(addr); got != want {
			t.Errorf("%s made by %s, want %s", addr, got, want)
		}
	}
	if aa.Cross() || aa.ClientLink != nil || aa.ProviderKeyFor(aa.Client.Address) != "hosts.a" {
		t.Errorf("pair aa of one provider: cross %v, client link %v", aa.Cross(), aa.ClientLink)
	}
	var creates []string
	for _, a := range p.Actions {
		if a.Group == ab.Address {
			creates = append(creates, a.Address)
		}
	}
	if got := strings.Join(creates, " "); got != "pair.ab.link pair.ab.client_link pair.ab.server pair.ab.client" {
		t.Errorf("actions of pair ab: %s", got)
	}

	// A state that has the client from another provider replaces it.
	st := &state.State{Resources: []state.Resource{{ProviderKey: "hosts.a", Status: state.Created, Shape: ab.Shape}}}
	st.Resources[0].Address, st.Resources[0].Kind = ab.Client.Address, "machine"
	p2, _ := New(load(t, crossLab), st, Options{})
	for _, a := range p2.Actions {
		if a.Address == ab.Client.Address && (a.Op != OpReplace || !strings.Contains(a.Reason, "made by provider hosts.b now, not hosts.a")) {
			t.Errorf("client moved to another provider: %s (%s)", a.Op, a.Reason)
		}
	}
}

// TestCrossPairCapabilities: both ends' back ends must put their machines
// on an existing network; what neither can change is refused; the hardware
// asked is checked against what both can do; a block without the role's
// machine, or one machine's block used twice, is refused.
func TestCrossPairCapabilities(t *testing.T) {
	lab := load(t, crossLab)
	p, diags := New(lab, &state.State{}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	existing := providers.Capabilities{ExistingNetwork: true, GuestOffloads: true}
	tests := []struct {
		name string
		caps map[string]providers.Capabilities
		lab  string // replaces crossLab when set
		want []string
	}{
		{"both on an existing network", map[string]providers.Capabilities{"hosts.a": existing, "hosts.b": existing}, "", nil},
		{"the client's back end makes its own network", map[string]providers.Capabilities{"hosts.a": existing, "hosts.b": {GuestOffloads: true}}, "",
			[]string{"Cross pair needs an existing network@lab.hcl:9"}},
		{"a link MTU would change the existing network",
			map[string]providers.Capabilities{"hosts.a": {ExistingNetwork: true, LinkMTU: true}, "hosts.b": {ExistingNetwork: true, LinkMTU: true}},
			strings.Replace(crossLab, "client = template.b\n", "client = template.b\n  link { mtu = 9000 }\n", 1),
			[]string{"Link MTU of an existing network@lab.hcl:10"}},
		{"vcpu only one end's back end can set",
			map[string]providers.Capabilities{"hosts.a": {ExistingNetwork: true, VCPU: true}, "hosts.b": existing},
			strings.Replace(crossLab, "client = template.b\n", "client = template.b\n  vcpu = 2\n", 1),
			[]string{"vCPU count not supported@lab.hcl:10"}},
		{"no client block", map[string]providers.Capabilities{"hosts.a": existing, "hosts.b": {ExistingNetwork: true, Roles: []string{"server"}}}, "",
			[]string{"No client in the provider block@lab.hcl:9"}},
		{"one machine, two uses", map[string]providers.Capabilities{"hosts.a": {ExistingNetwork: true, OneMachine: true}, "hosts.b": existing}, "",
			[]string{"One machine, several uses@lab.hcl:3"}},
		{"an end on a back end that addresses its own machines needs the spec's address",
			map[string]providers.Capabilities{"hosts.a": {ExistingNetwork: true, LinkAddresses: true}, "hosts.b": existing}, "",
			[]string{"Missing link address@lab.hcl:7"}},
		{"the spec's address for it",
			map[string]providers.Capabilities{"hosts.a": {ExistingNetwork: true, LinkAddresses: true}, "hosts.b": existing},
			strings.Replace(crossLab, "client = template.b\n", "client = template.b\n  addresses = { server = \"198.18.250.2/24\" }\n", 1), nil},
		{"an address a back end does not take",
			map[string]providers.Capabilities{"hosts.a": existing, "hosts.b": existing},
			strings.Replace(crossLab, "client = template.b\n", "client = template.b\n  addresses = { client = \"198.18.250.3/24\" }\n", 1),
			[]string{"Address not taken@lab.hcl:10"}},
		{"addresses in two shapes at once",
			map[string]providers.Capabilities{"hosts.a": {ExistingNetwork: true, LinkAddresses: true, VCPU: true}, "hosts.b": {ExistingNetwork: true, VCPU: true}},
			strings.Replace(strings.Replace(crossLab, "client = template.b\n", "client = template.b\n  addresses = { server = \"198.18.250.2/24\" }\n", 1),
				"pairs = [pair.ab, pair.aa]", "pairs = [pair.ab]\n  matrix = { vcpu = [1, 2] }\n  hardware { vcpu = matrix.vcpu }", 1),
			[]string{"Addresses of one shape@lab.hcl:10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, pl := lab, p
			if tc.lab != "" {
				l = load(t, tc.lab)
				var d hcl.Diagnostics
				if pl, d = New(l, &state.State{}, Options{}); d.HasErrors() {
					t.Fatal(d)
				}
			}
			diags := CheckCapabilities(pl, l, func(key string) (providers.Capabilities, bool) { c, ok := tc.caps[key]; return c, ok })
			var got []string
			for _, d := range diags {
				s := d.Summary
				if d.Subject != nil {
					s += fmt.Sprintf("@%s:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line)
				}
				got = append(got, s)
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("got %q, want %q", got, tc.want)
				for _, d := range diags {
					t.Log(d)
				}
			}
		})
	}
}
