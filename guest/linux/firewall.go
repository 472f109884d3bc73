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

// maxFirewall bounds a ruleset's size.
const maxFirewall = 64 << 10

// validateFirewall rejects what nft could never parse as ruleset text and
// anything that could reach beyond a ruleset (NUL, other control bytes).
func validateFirewall(body string) error {
	if len(body) > maxFirewall {
		return fmt.Errorf("firewall ruleset: %d bytes, at most %d", len(body), maxFirewall)
	}
	for i, r := range body {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return fmt.Errorf("firewall ruleset: control character %q at byte %d", r, i)
		}
	}
	return CheckRuleset(body)
}

// applyFirewall replaces the lab_fw table with body (none when empty). The
// ruleset goes to nft on stdin, never through a shell; `nft -c` checks it
// first, as a replacement of the table (a changed hook would not check as
// an addition), so a ruleset nft refuses leaves the previous table in place.
func applyFirewall(ctx context.Context, t guest.Transport, body string) error {
	ruleset := "table inet " + FirewallTable + " {\n" + body + "\n}\n"
	if strings.TrimSpace(body) != "" {
		replace := "table inet " + FirewallTable + "\ndelete table inet " + FirewallTable + "\n" + ruleset
		if _, err := t.Run(ctx, guest.Cmd{Argv: []string{"nft", "-c", "-f", "-"}, Stdin: strings.NewReader(replace)}); err != nil {
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

// observeFirewall lists the lab_fw table ("" when absent).
func observeFirewall(ctx context.Context, t guest.Transport) (string, error) {
	out, err := run(ctx, t, "nft", "list", "table", "inet", FirewallTable)
	if missing(err) {
		return "", nil
	}
	return strings.TrimSpace(out), err
}
