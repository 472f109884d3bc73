package linux

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Observe reads back what is in effect on interface iface: MTU, every
// offload in Features, the ring sizes when s asks for one, the congestion
// control algorithm and its scope, the sysctls s asks for, any loss rule
// (iptables LossChain, netem root qdisc), the kernel release, the NIC
// driver and the link speed it reports. Only failures to read something s asks for are errors; other
// failures become warnings.
func (l *Linux) Observe(ctx context.Context, t guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	return observe(ctx, t, iface, s, nil)
}

// ObserveSettings is Observe without the reads no setting changes — the
// kernel release, the NIC's driver, firmware and link speed — which it
// copies from known, an earlier Observe of the same interface on the same
// connection (a kernel or a driver does not change under a live
// connection). Every setting is read back as by Observe. It saves three
// commands per end on each run after the first (issue 32 §6).
func (l *Linux) ObserveSettings(ctx context.Context, t guest.Transport, iface string, s guest.Settings, known guest.Observed) (guest.Observed, error) {
	return observe(ctx, t, iface, s, &known)
}

// observe is Observe; with known it reads no provenance (ObserveSettings).
func observe(ctx context.Context, t guest.Transport, iface string, s guest.Settings, known *guest.Observed) (guest.Observed, error) {
	if err := Validate(iface, s); err != nil {
		return guest.Observed{}, fmt.Errorf("%s: %w", t.Name(), err)
	}
	// The reads below are independent: on a transport that runs commands
	// at once they all start now, and each is answered when reached.
	t, stop := guest.Prefetch(ctx, t, observeReads(iface, s, known == nil))
	defer stop()
	o := guest.Observed{Interface: iface}
	warn := func(err error) { o.Warnings = append(o.Warnings, err.Error()) }

	out, err := run(ctx, t, "ip", "-j", "link", "show", "dev", iface)
	if err != nil {
		return o, err
	}
	if o.MTU, err = parseLinkMTU(out); err != nil {
		return o, fmt.Errorf("%s: ip -j link show dev %s: %w", t.Name(), iface, err)
	}

	out, err = run(ctx, t, "ethtool", "-k", iface)
	switch {
	case err == nil:
		o.Offloads = parseFeatures(out)
	case len(s.Offloads) > 0:
		return o, err
	default:
		warn(err)
	}

	if s.RxRing > 0 || s.TxRing > 0 {
		r, err := readRings(ctx, t, iface)
		if err != nil {
			return o, err
		}
		o.Rings = &r
	}

	if err := observeCC(ctx, t, s.CongestionControl, &o); err != nil {
		return o, err
	}
	for _, k := range guest.SortedKeys(s.Sysctl) {
		v, err := run(ctx, t, "sysctl", "-n", k)
		if err != nil {
			return o, err
		}
		if o.Sysctl == nil {
			o.Sysctl = map[string]string{}
		}
		o.Sysctl[k] = strings.TrimSpace(v)
	}

	o.Loss = observeLoss(ctx, t, iface, lossTool(s.IPv6), s.Loss != nil && s.Loss.Percent > 0, warn)
	if s.Firewall != "" {
		if o.Firewall, err = observeFirewall(ctx, t); err != nil {
			return o, err
		}
	}

	if known != nil {
		o.Kernel, o.Driver, o.Firmware, o.LinkSpeed = known.Kernel, known.Driver, known.Firmware, known.LinkSpeed
		return o, nil
	}
	if out, err = run(ctx, t, "uname", "-r"); err != nil {
		warn(err)
	}
	o.Kernel = strings.TrimSpace(out)
	if out, err = run(ctx, t, "ethtool", "-i", iface); err != nil {
		warn(err)
	}
	o.Driver = ethtoolField(out, "driver")
	o.Firmware = ethtoolField(out, "firmware-version")
	// The link speed is information, not a setting: a guest whose ethtool
	// cannot read it (no link settings, no permission) records none.
	if out, err = run(ctx, t, "ethtool", iface); err == nil {
		o.LinkSpeed = parseLinkSpeed(out)
	}
	return o, nil
}

// observeReads are the commands Observe runs whatever they answer, in its
// order (the congestion controls available are read only when needed);
// provenance false leaves out the kernel's, driver's and link's reads.
func observeReads(iface string, s guest.Settings, provenance bool) []guest.Cmd {
	argvs := [][]string{{"ip", "-j", "link", "show", "dev", iface}, {"ethtool", "-k", iface}}
	if s.RxRing > 0 || s.TxRing > 0 {
		argvs = append(argvs, []string{"ethtool", "-g", iface})
	}
	argvs = append(argvs, []string{"sysctl", "-n", ccKey})
	for _, k := range guest.SortedKeys(s.Sysctl) {
		argvs = append(argvs, []string{"sysctl", "-n", k})
	}
	argvs = append(argvs, []string{lossTool(s.IPv6), "-w", "-S", LossChain}, []string{"tc", "qdisc", "show", "dev", iface, "root"})
	if s.Firewall != "" {
		argvs = append(argvs, []string{"nft", "list", "table", "inet", FirewallTable})
	}
	if provenance {
		argvs = append(argvs, []string{"uname", "-r"}, []string{"ethtool", "-i", iface}, []string{"ethtool", iface})
	}
	cmds := make([]guest.Cmd, len(argvs))
	for i, a := range argvs {
		cmds[i] = guest.Cmd{Argv: a}
	}
	return cmds
}

// observeCC fills CongestionControl and CCScope. When the namespace default
// differs from the asked algorithm but the algorithm is available, the
// benchmark selects it per socket: the asked algorithm is reported with
// scope "socket" and a warning names the namespace default.
func observeCC(ctx context.Context, t guest.Transport, asked string, o *guest.Observed) error {
	out, err := run(ctx, t, "sysctl", "-n", ccKey)
	if err != nil {
		return err
	}
	o.CongestionControl, o.CCScope = strings.TrimSpace(out), "namespace"
	if asked == "" || asked == o.CongestionControl {
		return nil
	}
	avail, err := availableCC(ctx, t)
	if err != nil {
		return err
	}
	if contains(avail, asked) {
		o.Warnings = append(o.Warnings, fmt.Sprintf(
			"congestion control %s: namespace default stays %s (not allowed in this namespace); the benchmark selects %s per socket",
			asked, o.CongestionControl, asked))
		o.CongestionControl, o.CCScope = asked, "socket"
	}
	return nil
}

// observeLoss describes the loss rules in place ("" when none): the rules
// of LossChain and a netem root qdisc, joined by "; ".
func observeLoss(ctx context.Context, t guest.Transport, iface, tool string, asked bool, warn func(error)) string {
	var rules []string
	out, err := run(ctx, t, tool, "-w", "-S", LossChain)
	if err != nil && (asked || !missing(err)) {
		warn(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "-A "+LossChain+" ") {
			rules = append(rules, strings.TrimSpace(line))
		}
	}
	out, err = run(ctx, t, "tc", "qdisc", "show", "dev", iface, "root")
	if err != nil {
		warn(err)
	}
	if line := netemLine(out); line != "" {
		rules = append(rules, line)
	}
	return strings.Join(rules, "; ")
}

func parseLinkMTU(out string) (int, error) {
	var links []struct {
		MTU int `json:"mtu"`
	}
	if err := json.Unmarshal([]byte(out), &links); err != nil {
		return 0, err
	}
	if len(links) != 1 {
		return 0, fmt.Errorf("want one link, got %d", len(links))
	}
	if links[0].MTU <= 0 {
		return 0, fmt.Errorf("link MTU %d is not a positive number", links[0].MTU)
	}
	return links[0].MTU, nil
}

// parseFeatures maps the short names in Features to the states `ethtool -k`
// prints ("on", "off [fixed]", "on [requested off]").
func parseFeatures(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		name, state, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ") {
			continue // header or sub-feature
		}
		for _, f := range Features {
			if f.Long == name {
				m[f.Name] = strings.TrimSpace(state)
			}
		}
	}
	return m
}

// ethtoolField is one "name: value" line of `ethtool -i` ("" when absent
// or empty; veth reports an empty firmware-version).
func ethtoolField(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
