package freebsd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// A FreeBSD end's firewall is pf(4): a preset named in PFPresets (seed
// 001's rule sets) or a pf.conf(5) body. lab writes it to a file of its
// own and loads it as the main ruleset; nothing else of pf's is touched,
// and lab refuses to replace a ruleset it did not load.
//
// Every command and reply below is traced to freebsd-src, sbin/pfctl
// (read for this: pfctl.c at 004062345bbf, pfctl_parser.c at 04fecb9b4df6,
// parse.y at 01c44736028a):
//   - `pfctl -s info` prints print_status's first line, "Status: %s for %u
//     days %.2u:%.2u:%.2u" (or "Status: %s" when pf never ran), with %s
//     "Enabled" or "Disabled", padded to 44 columns before "Debug: …".
//   - `pfctl -s rules` is pfctl_show_rules: the scrub rules, then the
//     filter rules, each one print_rule line and "\n"; nothing when the
//     ruleset is empty. `pfctl -s nat` is pfctl_show_nat, the same for the
//     nat, rdr and binat rules.
//   - `pfctl -f FILE` is pfctl_rules: the whole file is parsed first
//     (parse_config; a syntax error exits 1 with "Syntax error in config
//     file: pf rules not loaded" and rolls the transaction back), then the
//     scrub, NAT and filter rules and the options are committed in one
//     DIOCXCOMMIT: it replaces the main ruleset, and the options of a file
//     that sets none go back to their defaults (pfctl_load_options), set
//     skip too (pfctl_adjust_skip_ifaces clears the skip flag of an
//     interface the file does not skip).
//   - `pfctl -e` / `pfctl -d` are pfctl_enable / pfctl_disable: "pf
//     enabled" / "pf disabled" on stderr; exit 1 with "pf already enabled"
//     (EEXIST) / "pf not enabled" (ENOENT).
//   - pfctl's -s argument is matched by prefix (pfctl_lookup_option over
//     showopt_list: "rules", "nat", "info"), so lab spells it out.
const (
	// PFConfPath is the file lab writes the ruleset to and loads. Its
	// presence says the loaded ruleset is lab's (lab refuses to replace
	// one it did not write); its files are deleted at boot
	// (libexec/rc/rc.d/cleanvar: find -x /var/run -type f … -delete), when
	// pf loads the system's own ruleset again.
	PFConfPath = "/var/run/lab-pf.conf"
	// PFEnabledPath exists while pf runs because lab enabled it: teardown
	// disables pf only then.
	PFEnabledPath = "/var/run/lab-pf.enabled"
	// pfEmpty is what lab loads at teardown: the ruleset before lab's was
	// empty (lab refuses any other), and an empty file puts the options
	// back to their defaults. pfctl_fopen (pfctl.c) refuses only a
	// directory, so /dev/null reads as an empty file.
	pfEmpty = "/dev/null"
)

// PFPreset is one of seed 001's rule sets: the post's words for it, and
// the pf.conf lab loads for it.
type PFPreset struct {
	Name string
	// Seed is how seed 001 named the cell ("pf enabled, keep state").
	Seed string
	// Rules are the pf.conf lines after set skip; Skip says every
	// interface is skipped (the seed's "pf disabled (set skip on {ix0,
	// ix1})"), otherwise only lo0 is.
	Rules []string
	Skip  bool
}

// stateless passes every packet lab's SSH session and the benchmark send
// without a state entry: it comes first in every preset (pf.conf(5): the
// last matching rule decides), so a packet the preset's own rule does not
// match — one of a TCP connection opened before pf was enabled, which
// "flags S/SA" never matches — is still passed, whatever the kernel's
// default rule (PF_DROP in a kernel built with options PF_DEFAULT_TO_DROP,
// sys/netpfil/pf/pf_ioctl.c pfattach_vnet).
const stateless = "pass all no state"

// PFPresets are seed 001's rule sets, in the post's order. Every one passes
// all traffic; they differ in what pf does per packet: nothing (skip),
// evaluate the rules (no state), look the packet up in the state table
// (keep state, sloppy: without sequence-number checks), rewrite TCP
// initial sequence numbers too (modulate state), and normalise first
// (scrub: random-id rewrites IP IDs, reassemble tcp normalises TCP; a
// scrub rule with reassemble tcp must not name a direction, parse.y
// scrubrule). "pass all" keeps state with flags S/SA unless told
// otherwise (parse.y: "'keep state' by default on pass rules", "'flags
// S/SA' by default on stateful rules"); modulate state is for TCP, so
// other protocols keep plain state.
var PFPresets = []PFPreset{
	{Name: "skip", Seed: "pf disabled (set skip on {ix0, ix1})", Skip: true, Rules: []string{stateless}},
	{Name: "no-state", Seed: "pf enabled, no state", Rules: []string{stateless}},
	{Name: "keep-state", Seed: "pf enabled, keep state", Rules: []string{stateless, "pass all keep state"}},
	{Name: "keep-state-sloppy", Seed: "pf enabled, keep state (sloppy)", Rules: []string{stateless, "pass all keep state (sloppy)"}},
	{Name: "modulate-state", Seed: "pf enabled, modulate state",
		Rules: []string{stateless, "pass all keep state", "pass proto tcp all modulate state"}},
	{Name: "modulate-state-scrub", Seed: "pf enabled, modulate state scrub (random-id reassemble tcp)",
		Rules: []string{"scrub all random-id reassemble tcp", stateless, "pass all keep state", "pass proto tcp all modulate state"}},
}

// PFPresetNames lists the presets' names in order.
func PFPresetNames() []string {
	n := make([]string, len(PFPresets))
	for i, p := range PFPresets {
		n[i] = p.Name
	}
	return n
}

// pfPreset is the preset named body (surrounding blanks ignored), nil
// when body is not a preset's name.
func pfPreset(body string) *PFPreset {
	name := strings.TrimSpace(body)
	for i := range PFPresets {
		if PFPresets[i].Name == name {
			return &PFPresets[i]
		}
	}
	return nil
}

// PFConf is the pf.conf lab loads for a preset, skipping ifaces when the
// preset skips every interface (lo0 alone otherwise). Options come before
// rules and scrub rules before filter rules, the order parse.y's
// check_rulestate demands.
func PFConf(p PFPreset, ifaces []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# lab: pf preset %s (seed 001: %q)\n", p.Name, p.Seed)
	skip := []string{"lo0"}
	if p.Skip {
		skip = ifaces
	}
	fmt.Fprintf(&b, "set skip on { %s }\n", strings.Join(skip, " "))
	for _, r := range p.Rules {
		b.WriteString(r + "\n")
	}
	return b.String()
}

// ifnameRE is an interface name pf.conf takes unquoted (IFNAMSIZ is 16).
var ifnameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]{0,14}$`)

// listInterfaces is every interface of the guest, for the skip preset:
// ifconfig(8)'s -l ("scan interface names only", namesonly in sbin/
// ifconfig/ifconfig.c main: printf(" ") between names, fputs(name), then
// printf("\n") — one line of names separated by single blanks). A name
// pf.conf could not take unquoted is left out; lo0 is always in.
func listInterfaces(ctx context.Context, t guest.Transport) ([]string, error) {
	out, err := run(ctx, t, "ifconfig", "-l")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{"lo0": true}
	for _, n := range strings.Fields(out) {
		if ifnameRE.MatchString(n) {
			seen[n] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// pfConfFor is the file lab loads for body: a preset's pf.conf or the body
// itself (with a final newline).
func pfConfFor(ctx context.Context, t guest.Transport, body string) (string, error) {
	p := pfPreset(body)
	if p == nil {
		return strings.TrimRight(body, "\n") + "\n", nil
	}
	var ifaces []string
	if p.Skip {
		var err error
		if ifaces, err = listInterfaces(ctx, t); err != nil {
			return "", err
		}
	}
	return PFConf(*p, ifaces), nil
}

// applyPF loads body as pf's ruleset, enabling pf when it was not (and
// remembering that lab did); an empty body removes lab's ruleset.
func applyPF(ctx context.Context, t guest.Transport, body string) error {
	if strings.TrimSpace(body) == "" {
		return removePF(ctx, t)
	}
	conf, err := pfConfFor(ctx, t, body)
	if err != nil {
		return err
	}
	if err := loadPFModule(ctx, t); err != nil {
		return err
	}
	enabled, err := pfEnabled(ctx, t)
	if err != nil {
		return err
	}
	if err := checkPFOwner(ctx, t); err != nil {
		return err
	}
	if err := t.Upload(ctx, PFConfPath, strings.NewReader(conf)); err != nil {
		return err
	}
	if _, err := run(ctx, t, "pfctl", "-f", PFConfPath); err != nil {
		return fmt.Errorf("pf did not load the firewall ruleset %s: %w", PFConfPath, err)
	}
	if enabled {
		return nil
	}
	if _, err := run(ctx, t, "touch", PFEnabledPath); err != nil {
		return err
	}
	_, err = run(ctx, t, "pfctl", "-e")
	return err
}

// loadPFModule loads pf.ko when kldstat(8) does not find the module pf
// (loaded or compiled in); kldload -n does nothing when it is there.
func loadPFModule(ctx context.Context, t guest.Transport) error {
	loaded, err := moduleLoaded(ctx, t, "pf")
	if err != nil || loaded {
		return err
	}
	_, err = run(ctx, t, "kldload", "-n", "pf")
	return err
}

// pfEnabled reads pf's status from `pfctl -s info`.
func pfEnabled(ctx context.Context, t guest.Transport) (bool, error) {
	out, err := run(ctx, t, "pfctl", "-s", "info")
	if err != nil {
		return false, err
	}
	status, err := ParsePFStatus(out)
	if err != nil {
		return false, fmt.Errorf("%s: pfctl -s info: %w", t.Name(), err)
	}
	return status == "Enabled", nil
}

// ParsePFStatus is "Enabled" or "Disabled" from `pfctl -s info`: the first
// word after "Status: " on the first line (print_status in
// sbin/pfctl/pfctl_parser.c: "Status: %s for %u days %.2u:%.2u:%.2u", or
// "Status: %s" when pf has never run, %s "Enabled" or "Disabled").
func ParsePFStatus(out string) (string, error) {
	line, _, _ := strings.Cut(out, "\n")
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "Status:" || f[1] != "Enabled" && f[1] != "Disabled" {
		return "", fmt.Errorf("no \"Status: Enabled\" or \"Status: Disabled\" line in %q", line)
	}
	return f[1], nil
}

// checkPFOwner refuses to replace a ruleset lab did not load: pf has
// filter or scrub rules (`pfctl -s rules`) or translation rules (`pfctl -s
// nat`: pfctl_show_nat prints the nat, rdr and binat rules, one print_rule
// line each; pfctl -f would replace those too) and PFConfPath does not
// exist.
func checkPFOwner(ctx context.Context, t guest.Transport) error {
	var rules []string
	for _, set := range []string{"rules", "nat"} {
		out, err := run(ctx, t, "pfctl", "-s", set)
		if err != nil {
			return err
		}
		if o := strings.TrimSpace(out); o != "" {
			rules = append(rules, strings.Split(o, "\n")...)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	ours, err := exists(ctx, t, PFConfPath)
	if err != nil || ours {
		return err
	}
	return fmt.Errorf("%s: pf already has a ruleset lab did not load (pfctl -s rules / -s nat: %q, %d rules): lab will not replace it. "+
		"Remove the firewall setting for this guest, or empty pf's ruleset first (pfctl -f /dev/null) if you mean lab to use pf there",
		t.Name(), strings.TrimSpace(rules[0]), len(rules))
}

// removePF puts pf back as it was before lab loaded a ruleset: disabled
// when lab enabled it, with the empty ruleset lab found (pf.ko stays
// loaded: with no rules and disabled it filters nothing; when someone
// unloaded it, only lab's files are removed). Nothing runs beyond the
// first check when lab never loaded one.
func removePF(ctx context.Context, t guest.Transport) error {
	ours, err := exists(ctx, t, PFConfPath)
	if err != nil || !ours {
		return err
	}
	loaded, err := moduleLoaded(ctx, t, "pf")
	if err != nil {
		return err
	}
	if !loaded { // pf.ko was unloaded since: no ruleset, nothing running
		_, err = run(ctx, t, "rm", "-f", PFConfPath, PFEnabledPath)
		return err
	}
	weEnabled, err := exists(ctx, t, PFEnabledPath)
	if err != nil {
		return err
	}
	if weEnabled {
		if _, err := run(ctx, t, "pfctl", "-d"); err != nil && !pfNotEnabled(err) {
			return err
		}
	}
	if _, err := run(ctx, t, "pfctl", "-f", pfEmpty); err != nil {
		return err
	}
	_, err = run(ctx, t, "rm", "-f", PFConfPath, PFEnabledPath)
	return err
}

// pfNotEnabled reports pfctl -d's refusal when pf is already disabled
// (pfctl_disable: errx(1, "pf not enabled") on ENOENT): someone disabled
// it after lab enabled it, which is where teardown leaves it anyway.
func pfNotEnabled(err error) bool {
	var ce *guest.CommandError
	return errors.As(err, &ce) && ce.ExitCode == 1 && strings.Contains(ce.Stderr, "pf not enabled")
}

// exists runs test(1)'s -e: exit status 0 when path exists, 1 when not.
func exists(ctx context.Context, t guest.Transport, path string) (bool, error) {
	return probe(ctx, t, "test", "-e", path)
}

// observePF describes pf as lab set it up: "Status: Enabled" and the rules
// `pfctl -s rules` lists. It is "" with a warning when pf is not enabled,
// so that guest.Verify reports the firewall missing.
func observePF(ctx context.Context, t guest.Transport, warn func(error)) string {
	enabled, err := pfEnabled(ctx, t)
	if err != nil {
		warn(err)
		return ""
	}
	if !enabled {
		warn(fmt.Errorf("%s: pf is not enabled (pfctl -s info: Status: Disabled)", t.Name()))
		return ""
	}
	rules, err := run(ctx, t, "pfctl", "-s", "rules")
	if err != nil {
		warn(err)
		return ""
	}
	return strings.TrimSpace("Status: Enabled\n" + strings.TrimSpace(rules))
}
