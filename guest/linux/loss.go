package linux

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// applyLoss makes iface's emulated loss exactly l: it installs the rule for
// l's method and removes whatever an earlier Apply left of the others. The
// nth and random rules are iptables' for a benchmark over IPv4 and
// ip6tables' (the same chain, match and target: ip6tables has the
// statistic match too) over IPv6 (ipv6); a run over IPv6 also removes the
// other family's rule, while a run over IPv4 leaves the ip6tables chain
// alone, as before IPv6 existed (a rule there drops no IPv4 packet).
func applyLoss(ctx context.Context, t guest.Transport, iface string, l *guest.Loss, ipv6 bool) error {
	method := ""
	if l != nil && l.Percent > 0 {
		method = l.Method
	}
	tool := lossTool(ipv6)
	if method == "nth" || method == "random" {
		if err := resetLossChain(ctx, t, tool); err != nil {
			return err
		}
		argv := append([]string{tool, "-w", "-A", LossChain, "-i", iface}, LossMatch(*l)...)
		if _, err := run(ctx, t, append(argv, "-j", "DROP")...); err != nil {
			return err
		}
	} else if _, err := run(ctx, t, tool, "-w", "-F", LossChain); err != nil && !missing(err) {
		return err
	}
	if ipv6 {
		if _, err := run(ctx, t, ipt, "-w", "-F", LossChain); err != nil && !missing(err) {
			return err
		}
	}

	if method == "netem" {
		_, err := run(ctx, t, "tc", "qdisc", "replace", "dev", iface, "root", "netem", "loss", formatPct(l.Percent)+"%")
		return err
	}
	out, err := run(ctx, t, "tc", "qdisc", "show", "dev", iface, "root")
	if err != nil {
		return err
	}
	if netemLine(out) != "" {
		_, err = run(ctx, t, "tc", "qdisc", "del", "dev", iface, "root")
	}
	return err
}

// lossTool is the program holding the loss rule of a benchmark over IPv6
// (ip6tables) or IPv4 (iptables).
func lossTool(ipv6 bool) string {
	if ipv6 {
		return ip6t
	}
	return ipt
}

// resetLossChain makes sure tool's (iptables' or ip6tables') LossChain
// exists, is empty and is jumped to from the top of INPUT (once).
func resetLossChain(ctx context.Context, t guest.Transport, tool string) error {
	_, err := run(ctx, t, tool, "-w", "-N", LossChain)
	if ce := (*guest.CommandError)(nil); errors.As(err, &ce) && strings.Contains(ce.Stderr, "already exists") {
		err = nil
	}
	if err != nil {
		return err
	}
	if _, err := run(ctx, t, tool, "-w", "-F", LossChain); err != nil {
		return err
	}
	if _, err := run(ctx, t, tool, "-w", "-C", "INPUT", "-j", LossChain); err == nil {
		return nil
	}
	_, err = run(ctx, t, tool, "-w", "-I", "INPUT", "1", "-j", LossChain)
	return err
}

// LossMatch is the iptables match for an nth or random loss: nth drops
// every N-th packet with N = round(100/percent) (so the effective loss is
// 100/N %), random drops with probability percent/100. With a port, the
// protocol and port match come first, as in seed 003's rule
// (`-p tcp --dport 5001 -m statistic --mode nth …`), so that only those
// packets advance the nth counter.
func LossMatch(l guest.Loss) []string {
	var m []string
	if l.Port > 0 {
		m = []string{"-p", "tcp", "--dport", strconv.Itoa(l.Port)}
	}
	if l.Method == "nth" {
		n := max(1, int(math.Round(100/l.Percent)))
		return append(m, "-m", "statistic", "--mode", "nth", "--every", strconv.Itoa(n), "--packet", "0")
	}
	return append(m, "-m", "statistic", "--mode", "random", "--probability", strconv.FormatFloat(l.Percent/100, 'f', -1, 64))
}

// netemLine returns the netem qdisc line of `tc qdisc show`, "" if none.
func netemLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "qdisc" && f[1] == "netem" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

func formatPct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
