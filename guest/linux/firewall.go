package linux

import (
	"context"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// FirewallTable is the nftables table lab installs a firewall ruleset in;
// lab never touches any other table.
const FirewallTable = "lab_fw"

// MaxFirewall bounds a ruleset's size (it travels on stdin to nft).
const MaxFirewall = 64 << 10

// CheckFirewall refuses what nft could never parse as ruleset text,
// anything that could reach beyond a ruleset (NUL, other control bytes)
// and what CheckRuleset refuses. spec calls it at validate and plan (an
// error at the ruleset's file and line), Validate before apply: one rule.
// A refusal is a *RulesetError.
func CheckFirewall(body string) error {
	if len(body) > MaxFirewall {
		return &RulesetError{Line: 1, Column: 1, Msg: fmt.Sprintf("the ruleset has %d bytes; at most %d are allowed", len(body), MaxFirewall)}
	}
	line, col := 1, 0
	for i, r := range body {
		col++
		if r == '\n' {
			line, col = line+1, 0
		}
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return &RulesetError{Line: line, Column: col, Offset: i,
				Msg: fmt.Sprintf("the control character %q: an nftables ruleset is text with newlines and tabs only", r)}
		}
	}
	return CheckRuleset(body)
}

// applyFirewall replaces the lab_fw table with body (none when empty). The
// ruleset goes to nft on stdin, never through a shell; `nft -c` checks it
// first, as a replacement of the table (a changed hook would not check as
// an addition), so a ruleset nft refuses leaves the previous table in place.
func applyFirewall(ctx context.Context, t guest.Transport, body string) error {
	ruleset := firewallRuleset(body)
	if strings.TrimSpace(body) != "" {
		if _, err := t.Run(ctx, guest.Cmd{Argv: []string{"nft", "-c", "-f", "-"}, Stdin: strings.NewReader(firewallCheckText(body))}); err != nil {
			return fmt.Errorf("firewall ruleset refused by nft -c: %w", err)
		}
	}
	_, err := run(ctx, t, "nft", "delete", "table", "inet", FirewallTable)
	if err != nil && !missing(err) {
		return err
	}
	if strings.TrimSpace(body) == "" {
		return nil
	}
	_, err = t.Run(ctx, guest.Cmd{Argv: []string{"nft", "-f", "-"}, Stdin: strings.NewReader(ruleset)})
	return err
}

// firewallRuleset is the nft input that loads body as lab's table.
func firewallRuleset(body string) string {
	return "table inet " + FirewallTable + " {\n" + body + "\n}\n"
}

// checkPreambleLines are the lines firewallCheckText puts before body.
const checkPreambleLines = 3

// firewallCheckText is what `nft -c` checks before a ruleset is loaded, on
// the guest at apply and on this host at validate and plan: a replacement
// of lab's table (add it, delete it, define it again with body), since a
// changed hook would not check as an addition. Body starts on line
// checkPreambleLines+1.
func firewallCheckText(body string) string {
	return "table inet " + FirewallTable + "\ndelete table inet " + FirewallTable + "\n" + firewallRuleset(body)
}

// observeFirewall lists the lab_fw table ("" when absent).
func observeFirewall(ctx context.Context, t guest.Transport) (string, error) {
	out, err := run(ctx, t, "nft", "list", "table", "inet", FirewallTable)
	if missing(err) {
		return "", nil
	}
	return strings.TrimSpace(out), err
}
