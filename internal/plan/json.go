package plan

import (
	"encoding/json"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/machinejson"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// The plan's JSON (plan -json, saved plans) names every key in
// snake_case. The machine, link and cell types it holds belong to other
// packages and carry Go field names, so the plan writes and reads them
// through the mirrors below (and the machine package's smaller types
// through internal/machinejson, as the state file does); TestPlanFileFormat
// pins the bytes.

// machineJSON is a machine.Machine in the plan's JSON.
type machineJSON struct {
	Address   string          `json:"address"`
	LabID     string          `json:"lab_id"`
	Workspace string          `json:"workspace"`
	Pair      string          `json:"pair"`
	Role      string          `json:"role"`
	Name      string          `json:"name"`
	Template  templateJSON    `json:"template"`
	VCPU      int             `json:"vcpu"`
	MemoryMiB int             `json:"memory_mib"`
	NIC       machinejson.NIC `json:"nic"`
	Routed    bool            `json:"routed,omitempty"`
	// LinkAddress is the spec's address of the machine on an existing
	// network (pair addresses).
	LinkAddress string                `json:"link_address,omitempty"`
	Link        *machinejson.Instance `json:"link,omitempty"`  // set by apply, not by plan
	Link2       *machinejson.Instance `json:"link2,omitempty"` // set by apply, not by plan
}

type templateJSON struct {
	Name   string             `json:"name"`
	Source string             `json:"source,omitempty"`
	OS     string             `json:"os"`
	SSH    *machinejson.Login `json:"ssh,omitempty"`
	// CloudInit is the template's cloud_init {} block.
	CloudInit *machinejson.CloudInit `json:"cloud_init,omitempty"`
}

// linkJSON is a providers.LinkSpec in the plan's JSON.
type linkJSON struct {
	Address   string `json:"address"`
	LabID     string `json:"lab_id"`
	Workspace string `json:"workspace"`
	Pair      string `json:"pair"`
	Name      string `json:"name"`
	MTU       int    `json:"mtu"`
	Index     int    `json:"index"`
	IPv6      bool   `json:"ipv6,omitempty"`
}

// cellSpecJSON is a spec.CellSpec in the plan's JSON.
type cellSpecJSON struct {
	Server    guest.Settings `json:"server"`
	Client    guest.Settings `json:"client"`
	Router    guest.Settings `json:"router"`
	Bench     bench.Params   `json:"bench"`
	VCPU      int            `json:"vcpu,omitempty"`
	MemoryMiB int            `json:"memory_mib,omitempty"`
	// Background is the load run during the benchmark (background { … }).
	Background *bench.Params `json:"background,omitempty"`
}

func toMachineJSON(m machine.Machine) machineJSON {
	return machineJSON{Address: m.Address, LabID: m.LabID, Workspace: m.Workspace, Pair: m.Pair, Role: m.Role, Name: m.Name,
		Template: templateJSON{Name: m.Template.Name, Source: m.Template.Source, OS: m.Template.OS,
			SSH: machinejson.FromLogin(m.Template.SSH), CloudInit: machinejson.FromCloudInit(m.Template.CloudInit)},
		VCPU: m.VCPU, MemoryMiB: m.MemoryMiB, NIC: machinejson.FromNIC(m.NIC), Routed: m.Routed, LinkAddress: m.LinkAddress, Link: instancePtr(m.Link), Link2: instancePtr(m.Link2)}
}

func (m machineJSON) machine() machine.Machine {
	out := machine.Machine{Address: m.Address, LabID: m.LabID, Workspace: m.Workspace, Pair: m.Pair, Role: m.Role, Name: m.Name,
		Template: machine.Template{Name: m.Template.Name, Source: m.Template.Source, OS: m.Template.OS,
			SSH: m.Template.SSH.Machine(), CloudInit: m.Template.CloudInit.Machine()},
		VCPU: m.VCPU, MemoryMiB: m.MemoryMiB, NIC: m.NIC.Machine(), Routed: m.Routed, LinkAddress: m.LinkAddress}
	if m.Link != nil {
		out.Link = m.Link.Machine()
	}
	if m.Link2 != nil {
		out.Link2 = m.Link2.Machine()
	}
	return out
}

// instancePtr is nil for an instance not set (a plan's machines have no
// link instance yet).
func instancePtr(in machine.Instance) *machinejson.Instance {
	if in.Address == "" && in.ID == "" && in.Name == "" {
		return nil
	}
	out := machinejson.FromInstance(in)
	return &out
}

func toLinkJSON(l providers.LinkSpec) linkJSON {
	return linkJSON{Address: l.Address, LabID: l.LabID, Workspace: l.Workspace, Pair: l.Pair, Name: l.Name, MTU: l.MTU, Index: l.Index, IPv6: l.IPv6}
}

func (l linkJSON) link() providers.LinkSpec {
	return providers.LinkSpec{Address: l.Address, LabID: l.LabID, Workspace: l.Workspace, Pair: l.Pair, Name: l.Name, MTU: l.MTU, Index: l.Index, IPv6: l.IPv6}
}

// groupAlias is Group without its methods, for the default encoding of
// the fields the mirror does not replace.
type groupAlias Group

// groupJSON is a Group in the plan's JSON: its own fields, with the
// machines and links through their mirrors (the shallower fields win).
type groupJSON struct {
	*groupAlias
	Link       linkJSON     `json:"link"`
	ClientLink *linkJSON    `json:"client_link,omitempty"`
	Server     machineJSON  `json:"server"`
	Client     machineJSON  `json:"client"`
	Router     *machineJSON `json:"router,omitempty"`
}

// MarshalJSON writes the group with snake_case keys throughout.
func (g Group) MarshalJSON() ([]byte, error) {
	out := groupJSON{groupAlias: (*groupAlias)(&g), Link: toLinkJSON(g.Link), Server: toMachineJSON(g.Server), Client: toMachineJSON(g.Client)}
	if g.ClientLink != nil {
		l := toLinkJSON(*g.ClientLink)
		out.ClientLink = &l
	}
	if g.Router != nil {
		r := toMachineJSON(*g.Router)
		out.Router = &r
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (g *Group) UnmarshalJSON(b []byte) error {
	in := groupJSON{groupAlias: (*groupAlias)(g)}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	g.Link, g.Server, g.Client = in.Link.link(), in.Server.machine(), in.Client.machine()
	g.ClientLink, g.Router = nil, nil
	if in.ClientLink != nil {
		l := in.ClientLink.link()
		g.ClientLink = &l
	}
	if in.Router != nil {
		r := in.Router.machine()
		g.Router = &r
	}
	return nil
}

// runAlias is Run without its methods.
type runAlias Run

// runJSON is a Run in the plan's JSON, its cell spec through the mirror.
type runJSON struct {
	*runAlias
	Spec cellSpecJSON `json:"spec"`
}

// MarshalJSON writes the run with snake_case keys throughout.
func (r Run) MarshalJSON() ([]byte, error) {
	s := r.Spec
	return json.Marshal(runJSON{runAlias: (*runAlias)(&r), Spec: cellSpecJSON{Server: s.Server, Client: s.Client, Router: s.Router,
		Bench: s.Bench, VCPU: s.VCPU, MemoryMiB: s.MemoryMiB, Background: s.Background}})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Run) UnmarshalJSON(b []byte) error {
	in := runJSON{runAlias: (*runAlias)(r)}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	s := in.Spec
	r.Spec = spec.CellSpec{Server: s.Server, Client: s.Client, Router: s.Router, Bench: s.Bench, VCPU: s.VCPU, MemoryMiB: s.MemoryMiB,
		Background: s.Background}
	return nil
}
