// Package guest holds what the tool needs to talk to a guest machine: the
// Transport that carries commands to it (network-namespace exec, SSH) and the
// settings an experiment asks for together with what was observed afterwards.
// OS drivers (guest/linux, guest/freebsd) decide which commands to run.
package guest

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"syscall"
)

// Cmd is one command to run on a guest. Argv is never passed through a shell
// by the netns transport; transports that need a shell (SSH) quote every word.
type Cmd struct {
	Argv  []string
	Stdin io.Reader
	// Name, when set, is what error messages call the command instead of
	// its whole argv: a `sh -c` script of a dozen lines reads as what it
	// does ("read counters").
	Name string
}

// String renders the command the way a person would type it (quoted).
func (c Cmd) String() string { return ShellJoin(c.Argv) }

// Label is what messages call the command: its Name, or else String.
func (c Cmd) Label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.String()
}

// Result is what a finished command produced.
type Result struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// Transport carries commands to one guest.
type Transport interface {
	// Run runs the command and waits for it. A non-zero exit status is
	// returned as a *CommandError that carries the command and its output.
	Run(ctx context.Context, c Cmd) (Result, error)
	// Upload writes r to path on the guest.
	Upload(ctx context.Context, path string, r io.Reader) error
	// Name is the guest's name for messages ("pair.fast.server").
	Name() string
	Close() error
}

// CommandError is a remote command that failed: it names the guest, the
// command, the exit status and what the command printed on stderr.
type CommandError struct {
	Guest    string
	Cmd      string
	ExitCode int
	Stderr   string
	Err      error // underlying error when the command could not be started
	// Signal names the signal that killed the command ("killed"), when one
	// did; ExitCode is then -1 and says nothing.
	Signal string
}

func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Guest, e.Cmd, e.Err)
	}
	status := fmt.Sprintf("exit status %d", e.ExitCode)
	if e.Signal != "" {
		status = "killed by signal " + e.Signal + " (not by lab: something else on the machine ended it)"
	}
	if msg == "" {
		return fmt.Sprintf("%s: %s: %s", e.Guest, e.Cmd, status)
	}
	return fmt.Sprintf("%s: %s: %s: %s", e.Guest, e.Cmd, status, msg)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Settings are what an experiment asks of a guest for one cell. Zero values
// mean "leave as it is".
type Settings struct {
	MTU int `json:"mtu,omitempty"`
	// Offloads maps a feature name (lro, gro, gso, tso, rx, tx) to on/off.
	Offloads          map[string]bool   `json:"offloads,omitempty"`
	CongestionControl string            `json:"congestion_control,omitempty"`
	Sysctl            map[string]string `json:"sysctl,omitempty"`
	Loss              *Loss             `json:"loss,omitempty"`
	// Firewall is the ruleset in the language of the guest OS's firewall
	// (guest.Firewall): on Linux an nftables ruleset body (chains and
	// rules) installed as the table "inet lab_fw" — e.g. a stateful
	// forward chain on a router; on FreeBSD a pf preset ("keep-state") or
	// a pf.conf body loaded as pf's ruleset. Empty removes what an earlier
	// cell installed.
	Firewall string `json:"firewall,omitempty"`
	// RxRing and TxRing are the NIC's receive and transmit ring sizes in
	// descriptors (Linux `ethtool -G IFACE rx N tx N`); zero leaves a ring
	// as it is.
	RxRing int `json:"rx_ring,omitempty"`
	TxRing int `json:"tx_ring,omitempty"`
	// IPv6 says the benchmark runs over IPv6 (the experiment's ip_version
	// is 6 or "dual"): an nth or random loss rule then matches IPv6
	// packets instead of IPv4 ones (Linux ip6tables, FreeBSD ipfw's ip6
	// option), so that it counts the benchmark's packets, and the IPv6
	// rule an earlier cell left is removed. netem drops either family;
	// the Linux firewall table is family inet, which holds both.
	IPv6 bool `json:"ipv6,omitempty"`
	// Strict makes a setting that did not take effect an error (the default).
	// With Strict false it is recorded as a warning.
	Strict bool `json:"strict"`
}

// Loss is packet loss emulated on a guest's interface (ingress drop for the
// nth method, egress for netem).
type Loss struct {
	Percent float64 `json:"percent"`
	// Method is "nth" (iptables statistic --mode nth, deterministic, the
	// seed-003 method) or "random" (iptables statistic --mode random) or
	// "netem" (tc qdisc netem; needs the sch_netem module).
	Method string `json:"method"`
	// Port, when set, limits the drop to TCP packets to this destination
	// port, as seed 003's rule did (iptables -p tcp --dport 5001): on a
	// guest whose benchmark NIC also carries lab's SSH session, the nth
	// counter then counts only the benchmark's packets and lab's own are
	// never dropped. 0: every packet arriving on the interface.
	Port int `json:"port,omitempty"`
}

// Observed is what a guest reported after settings were applied.
type Observed struct {
	Interface         string            `json:"interface"`
	MTU               int               `json:"mtu"`
	Offloads          map[string]string `json:"offloads,omitempty"` // "on", "off", "on [fixed]", "off [requested on]"
	CongestionControl string            `json:"congestion_control,omitempty"`
	// CCScope is "namespace" when the algorithm was set for the whole guest
	// and "socket" when only per-socket selection was possible (the
	// benchmark then selects it itself).
	CCScope string            `json:"cc_scope,omitempty"`
	Sysctl  map[string]string `json:"sysctl,omitempty"`
	Loss    string            `json:"loss,omitempty"`
	// Firewall is the installed ruleset as the guest lists it (the lab_fw
	// table; pf's status and rules).
	Firewall string `json:"firewall,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
	Driver   string `json:"driver,omitempty"`
	// Firmware is the NIC's firmware version where the driver reports
	// one (Linux `ethtool -i`).
	Firmware string `json:"firmware,omitempty"`
	// LinkSpeed is the link speed the NIC's driver reports ("1000Mb/s",
	// "unknown"; Linux `ethtool IFACE`): an emulated NIC's is what the
	// device model claims, not what the link carries.
	LinkSpeed string `json:"link_speed,omitempty"`
	// Rings are the NIC's ring sizes (`ethtool -g`), read when a setting
	// asks for one; nil otherwise.
	Rings    *Rings   `json:"rings,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Rings are a NIC's receive and transmit ring sizes in descriptors, the
// current ones and the largest the driver accepts (0: not reported).
type Rings struct {
	RX    int `json:"rx"`
	TX    int `json:"tx"`
	RXMax int `json:"rx_max,omitempty"`
	TXMax int `json:"tx_max,omitempty"`
}

// OS is the operating-system driver of a guest: it decides which commands
// apply settings and reads back what took effect.
type OS interface {
	Apply(ctx context.Context, t Transport, iface string, s Settings) error
	Observe(ctx context.Context, t Transport, iface string, s Settings) (Observed, error)
}

// ShellQuote quotes one word for a POSIX shell.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin quotes every word and joins them with spaces.
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// SortedKeys returns the keys of a settings map in a stable order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SignalOf names the signal that ended a process (as os.ProcessState.Sys
// reports it), "" when it exited by itself.
func SignalOf(sys any) string {
	if ws, ok := sys.(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
