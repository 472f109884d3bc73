// Package machinejson is how lab's files write the machine package's
// types: the state file's resources and a saved plan's machines and links.
// The types here carry the files' JSON keys, so the machine package's Go
// types can change without changing a file format; the state's and the
// plan's golden tests pin the bytes.
package machinejson

import "github.com/lab-bench/lab/machine"

// Owner is a machine.Owner in a file.
type Owner struct {
	Lab       string `json:"lab"`
	Workspace string `json:"workspace"`
}

// Login is a machine.Login in a file.
type Login struct {
	Port           int    `json:"port,omitempty"`
	User           string `json:"user,omitempty"`
	PrivateKeyFile string `json:"private_key_file,omitempty"`
	HostKey        string `json:"host_key,omitempty"`
	Agent          bool   `json:"agent,omitempty"`
	KnownHostsFile string `json:"known_hosts_file,omitempty"`
	SSHConfig      string `json:"ssh_config,omitempty"`
	ProxyJump      string `json:"proxy_jump,omitempty"`
}

// Endpoint is a machine.Endpoint in a file.
type Endpoint struct {
	Addr       string `json:"addr,omitempty"`
	Addr6      string `json:"addr6,omitempty"`
	Iface      string `json:"iface,omitempty"`
	Iface2     string `json:"iface2,omitempty"`
	CPUs       []int  `json:"cpus,omitempty"`
	SSHHost    string `json:"ssh_host,omitempty"`
	SSH        *Login `json:"ssh,omitempty"`
	TemplateID string `json:"template_id,omitempty"`
}

// Instance is a machine.Instance in a file.
type Instance struct {
	Address  string            `json:"address"`
	Provider string            `json:"provider"`
	Kind     string            `json:"kind"`
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Owner    Owner             `json:"owner"`
	Pending  bool              `json:"pending,omitempty"`
	Endpoint *Endpoint         `json:"endpoint,omitempty"`
	Attrs    map[string]string `json:"attrs,omitempty"`
}

// NIC is a machine.NIC in a file.
type NIC struct {
	Model       string          `json:"model,omitempty"`
	Queues      int             `json:"queues,omitempty"`
	Host        map[string]bool `json:"host,omitempty"`
	RXQueueSize int             `json:"rx_queue_size,omitempty"`
	TXQueueSize int             `json:"tx_queue_size,omitempty"`
}

// CloudInit is a machine.CloudInit in a file.
type CloudInit struct {
	Packages []string `json:"packages,omitempty"`
	UserData string   `json:"user_data,omitempty"`
}

// FromInstance is in as a file holds it.
func FromInstance(in machine.Instance) Instance {
	return Instance{Address: in.Address, Provider: in.Provider, Kind: in.Kind, ID: in.ID, Name: in.Name,
		Owner: Owner(in.Owner), Pending: in.Pending, Endpoint: fromEndpoint(in.Endpoint), Attrs: in.Attrs}
}

// Machine is the instance a file holds.
func (i Instance) Machine() machine.Instance {
	return machine.Instance{Address: i.Address, Provider: i.Provider, Kind: i.Kind, ID: i.ID, Name: i.Name,
		Owner: machine.Owner(i.Owner), Pending: i.Pending, Endpoint: i.Endpoint.machine(), Attrs: i.Attrs}
}

func fromEndpoint(e *machine.Endpoint) *Endpoint {
	if e == nil {
		return nil
	}
	return &Endpoint{Addr: e.Addr, Addr6: e.Addr6, Iface: e.Iface, Iface2: e.Iface2, CPUs: e.CPUs, SSHHost: e.SSHHost, SSH: FromLogin(e.SSH), TemplateID: e.TemplateID}
}

func (e *Endpoint) machine() *machine.Endpoint {
	if e == nil {
		return nil
	}
	return &machine.Endpoint{Addr: e.Addr, Addr6: e.Addr6, Iface: e.Iface, Iface2: e.Iface2, CPUs: e.CPUs, SSHHost: e.SSHHost, SSH: e.SSH.Machine(), TemplateID: e.TemplateID}
}

// FromLogin is l as a file holds it (nil: none).
func FromLogin(l *machine.Login) *Login {
	if l == nil {
		return nil
	}
	out := Login(*l)
	return &out
}

// Machine is the login a file holds (nil: none).
func (l *Login) Machine() *machine.Login {
	if l == nil {
		return nil
	}
	out := machine.Login(*l)
	return &out
}

// FromNIC is n as a file holds it.
func FromNIC(n machine.NIC) NIC { return NIC(n) }

// Machine is the NIC a file holds.
func (n NIC) Machine() machine.NIC { return machine.NIC(n) }

// FromCloudInit is c as a file holds it (nil: none).
func FromCloudInit(c *machine.CloudInit) *CloudInit {
	if c == nil {
		return nil
	}
	out := CloudInit(*c)
	return &out
}

// Machine is the cloud_init block a file holds (nil: none).
func (c *CloudInit) Machine() *machine.CloudInit {
	if c == nil {
		return nil
	}
	out := machine.CloudInit(*c)
	return &out
}
