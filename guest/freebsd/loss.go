package freebsd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// lab owns one ipfw rule set, one rule number and one dummynet pipe; it
// never touches any other rule or pipe.
const (
	// LossSet is the ipfw rule set holding lab's loss rule: `ipfw delete
	// set LossSet` removes exactly what lab added.
	LossSet = 29
	// LossRule is the rule's number: early, so the drop happens before a
	// ruleset's own allow rules accept the packet.
	LossRule = 100
	// LossPipe is the dummynet pipe that drops packets (plr).
	LossPipe = 29
)

// The safe order, so that loading ipfw never locks out the SSH session:
// ipfw.ko denies everything by default unless the loader tunable
// net.inet.ip.fw.default_to_accept is 1 when the module loads. It is a
// boot-time (read-only) tunable, but kenv(1) sets it in the kernel
// environment, where the module reads it at load time. dummynet.ko
// depends on ipfw.ko, so loading dummynet first would load ipfw with the
// deny default: ipfw goes first, dummynet after.
const defaultToAccept = "net.inet.ip.fw.default_to_accept"

// applyLoss makes iface's emulated loss exactly l: lab's rule and pipe are
// replaced when l asks for loss and removed when it does not. The rule
// matches IPv6 packets only when the benchmark runs over IPv6 (ipv6);
// either way it is the one rule of lab's set, which a later Apply deletes
// whatever family it matched.
func applyLoss(ctx context.Context, t guest.Transport, iface string, l *guest.Loss, ipv6 bool) error {
	if l == nil || l.Percent == 0 {
		return removeLoss(ctx, t)
	}
	if err := loadIPFW(ctx, t); err != nil {
		return err
	}
	if _, err := run(ctx, t, "kldload", "-n", "dummynet"); err != nil {
		return err
	}
	if err := deleteLossRules(ctx, t); err != nil {
		return err
	}
	if _, err := run(ctx, t, "ipfw", "pipe", strconv.Itoa(LossPipe), "config", "plr", PLR(l.Percent)); err != nil {
		return err
	}
	argv := LossRuleArgv(iface, l.Port)
	if ipv6 {
		argv = LossRuleArgv6(iface, l.Port)
	}
	_, err := run(ctx, t, argv...)
	return err
}

// LossRuleArgv is the command that adds lab's loss rule on iface: every
// packet received on it goes through the loss pipe — with port > 0 only
// TCP packets to that destination port (ipfw(8): the protocol "tcp" in
// place of "ip", and the rule option "dst-port ports").
func LossRuleArgv(iface string, port int) []string {
	proto, opts := "ip", []string(nil)
	if port > 0 {
		proto, opts = "tcp", []string{"dst-port", strconv.Itoa(port)}
	}
	argv := []string{"ipfw", "add", strconv.Itoa(LossRule), "set", strconv.Itoa(LossSet),
		"pipe", strconv.Itoa(LossPipe), proto, "from", "any", "to", "any"}
	return append(append(argv, opts...), "in", "recv", iface)
}

// LossRuleArgv6 is LossRuleArgv for a benchmark over IPv6: the rule
// option ip6 (ipfw(8), RULE OPTIONS: "ip6: Matches IPv6 packets";
// sbin/ipfw/ipfw2.c compile_rule, TOK_IP6 → O_IP6) before "in recv", so
// that the pipe drops the benchmark's IPv6 packets and never the IPv4
// ones of lab's own SSH session. Without it "ip" and "tcp" match both
// families (ipfw(8): "ip … Matches any protocol").
func LossRuleArgv6(iface string, port int) []string {
	argv := LossRuleArgv(iface, port)
	n := len(argv) - 3 // … in recv IFACE
	return append(append(argv[:n:n], "ip6"), argv[n:]...)
}

// PLR is dummynet's packet loss rate for a percentage (1 % → "0.01").
func PLR(percent float64) string { return strconv.FormatFloat(percent/100, 'f', -1, 64) }

// loadIPFW loads ipfw with a default-accept policy when it is not loaded
// yet, and refuses to continue if the policy did not take (the guest
// would then drop everything lab's rule does not pass, including SSH).
func loadIPFW(ctx context.Context, t guest.Transport) error {
	loaded, err := moduleLoaded(ctx, t, "ipfw")
	if err != nil || loaded {
		return err
	}
	if _, err := run(ctx, t, "kenv", defaultToAccept+"=1"); err != nil {
		return err
	}
	if _, err := run(ctx, t, "kldload", "-n", "ipfw"); err != nil {
		return err
	}
	out, err := run(ctx, t, "sysctl", "-n", defaultToAccept)
	if err != nil {
		return err
	}
	if strings.TrimSpace(out) != "1" {
		return fmt.Errorf("%s: ipfw loaded with %s=%s: it denies by default; lab stops before adding rules (check the guest's console)",
			t.Name(), defaultToAccept, strings.TrimSpace(out))
	}
	return nil
}

// removeLoss deletes lab's rule set and pipe. Nothing is loaded to do it:
// without ipfw there is nothing to remove.
func removeLoss(ctx context.Context, t guest.Transport) error {
	if loaded, err := moduleLoaded(ctx, t, "ipfw"); err != nil || !loaded {
		return err
	}
	if err := deleteLossRules(ctx, t); err != nil {
		return err
	}
	if loaded, err := moduleLoaded(ctx, t, "dummynet"); err != nil || !loaded {
		return err
	}
	out, err := run(ctx, t, "ipfw", "pipe", "list")
	if err != nil || pipeLine(out) == "" {
		return err
	}
	_, err = run(ctx, t, "ipfw", "pipe", strconv.Itoa(LossPipe), "delete")
	return err
}

// deleteLossRules deletes lab's rule set when it has rules (looked up
// first, so an empty set never decides the outcome).
func deleteLossRules(ctx context.Context, t guest.Transport) error {
	rules, err := lossRules(ctx, t)
	if err != nil || len(rules) == 0 {
		return err
	}
	_, err = run(ctx, t, "ipfw", "-q", "delete", "set", strconv.Itoa(LossSet))
	return err
}

// lossRules lists the rules in lab's set (`ipfw -S list` prints each
// rule's set: "00100 set 29 pipe 29 ip from any to any in recv vtnet0").
func lossRules(ctx context.Context, t guest.Transport) ([]string, error) {
	out, err := run(ctx, t, "ipfw", "-S", "list")
	if err != nil {
		return nil, err
	}
	var rules []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "set" && f[2] == strconv.Itoa(LossSet) {
			rules = append(rules, strings.Join(f, " "))
		}
	}
	return rules, nil
}

// moduleLoaded asks kldstat whether a kernel module is present (loaded or
// compiled in): exit status 0 yes, 1 no.
func moduleLoaded(ctx context.Context, t guest.Transport, mod string) (bool, error) {
	return probe(ctx, t, "kldstat", "-q", "-m", mod)
}

// probe runs a command that answers a question by its exit status — 0
// yes, 1 no (kldstat -q, test -e) — and any other outcome is an error.
func probe(ctx context.Context, t guest.Transport, argv ...string) (bool, error) {
	_, err := run(ctx, t, argv...)
	switch exitStatus(err) {
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, err
}

// observeLoss describes lab's loss rule and pipe ("" when there is none).
func observeLoss(ctx context.Context, t guest.Transport, warn func(error)) string {
	if loaded, err := moduleLoaded(ctx, t, "ipfw"); err != nil || !loaded {
		if err != nil {
			warn(err)
		}
		return ""
	}
	parts, err := lossRules(ctx, t)
	if err != nil {
		warn(err)
		return ""
	}
	if len(parts) == 0 {
		return ""
	}
	if out, err := run(ctx, t, "ipfw", "pipe", "list"); err != nil {
		warn(err)
	} else if line := pipeLine(out); line != "" {
		parts = append(parts, line)
	}
	return strings.Join(parts, "; ")
}

// pipeLine describes LossPipe from `ipfw pipe list` output, "" if absent.
//
// Since FreeBSD 9 (sbin/ipfw/dummynet.c, list_pipes) a pipe is printed as
// its link, "00029: unlimited         0 ms burst 0", and, on a line of its
// own (list_pipes flushes the link line before the next object), the
// FIFO flowset that carries the pipe's queue and loss rate,
// "q131101  50 sl.plr 0.010000 0 flows (1 buckets) sched 65565 weight 0
// lmax 0 pri 0 droptail" (print_flowset_parms with no prefix). That
// flowset's number is the pipe's plus 2*DN_MAX_ID (ipfw_config_pipe:
// fs->fs_nr = i + 2*DN_MAX_ID, DN_MAX_ID 0x10000). Older releases printed
// plr on the pipe's own line. Both lines are kept, so that the loss rate
// reaches the record.
func pipeLine(out string) string {
	link := fmt.Sprintf("%05d:", LossPipe)
	flowset := fmt.Sprintf("q%05d ", LossPipe+2*dnMaxID)
	var parts []string
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, link) && len(parts) == 0 || strings.HasPrefix(l, flowset) {
			parts = append(parts, strings.Join(strings.Fields(l), " "))
		}
	}
	if len(parts) == 0 || !strings.HasPrefix(parts[0], link) {
		return ""
	}
	return strings.Join(parts, "; ")
}

// dnMaxID is DN_MAX_ID (sys/netinet/ip_dummynet.h): pipe N's scheduler is
// N+DN_MAX_ID and its FIFO flowset N+2*DN_MAX_ID.
const dnMaxID = 0x10000
