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
// replaced when l asks for loss and removed when it does not.
func applyLoss(ctx context.Context, t guest.Transport, iface string, l *guest.Loss) error {
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
	_, err := run(ctx, t, LossRuleArgv(iface)...)
	return err
}

// LossRuleArgv is the command that adds lab's loss rule on iface: every
// packet received on it goes through the loss pipe.
func LossRuleArgv(iface string) []string {
	return []string{"ipfw", "add", strconv.Itoa(LossRule), "set", strconv.Itoa(LossSet),
		"pipe", strconv.Itoa(LossPipe), "ip", "from", "any", "to", "any", "in", "recv", iface}
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
	_, err := run(ctx, t, "kldstat", "-q", "-m", mod)
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

// pipeLine is the first line of LossPipe in `ipfw pipe list` output
// ("00029:   unlimited    0 ms   50 sl.plr 0.010000 …"), "" if absent.
func pipeLine(out string) string {
	prefix := fmt.Sprintf("%05d:", LossPipe)
	for _, line := range strings.Split(out, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, prefix) {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}
