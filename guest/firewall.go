package guest

import (
	"context"
	"fmt"
)

// Firewall is an OS's packet filter as lab loads rulesets into it: the
// language a template's firewall attribute is written in, and the checks
// that refuse a ruleset before anything changes. spec asks for the
// firewall of a language (FirewallFor), never for an OS.
type Firewall struct {
	// Language is the ruleset language ("nftables", "pf").
	Language string
	// Table is the table lab wraps a ruleset body in ("lab_fw"); "" when
	// the body is the whole ruleset (pf's main ruleset).
	Table string
	// Presets are the names a firewall attribute may give instead of a
	// ruleset (pf's "keep-state"); nil: none.
	Presets []string
	// Hint, when not empty, says what a firewall attribute holds for this
	// OS, for spec's messages (without it they name Table).
	Hint string
	// Check refuses text the filter could never load as a ruleset body,
	// or that could act outside lab's table: a *RulesetError at the
	// offending place.
	Check func(body string) error
	// CheckOnHost has this host's own parser check body (nft -c in a
	// network namespace of its own): a *RulesetError it cannot parse, a
	// *FirewallKernelError this host's kernel refused, or a
	// *FirewallUncheckedError when it could not run. nil: this host has
	// no parser for the language (pf), the guest checks it at apply.
	CheckOnHost func(ctx context.Context, body string) error
}

// FirewallFor is the firewall of a registered OS whose ruleset language
// is language, and whether one is registered.
func FirewallFor(language string) (Firewall, bool) {
	for _, name := range Names() {
		if d, _ := Lookup(name); d.Firewall.Language == language {
			return d.Firewall, true
		}
	}
	return Firewall{}, false
}

// RulesetError is a firewall ruleset refused at a line and column
// (1-based) of the ruleset body.
type RulesetError struct {
	Line, Column int
	// Offset is the byte offset in the body of what Line and Column name.
	Offset int
	Msg    string
}

func (e *RulesetError) Error() string {
	return fmt.Sprintf("firewall ruleset line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// FirewallUncheckedError says why Firewall.CheckOnHost could not run this
// host's parser: the ruleset was not syntax-checked (a warning, not a
// refusal).
type FirewallUncheckedError struct{ Reason string }

func (e *FirewallUncheckedError) Error() string {
	return "the firewall ruleset was not syntax-checked: " + e.Reason
}

// FirewallKernelError is a ruleset this host's parser read but its kernel
// refused (an expression or object type it lacks): the guest's kernel may
// differ, so it is worth a warning, not a refusal.
type FirewallKernelError struct {
	RulesetError
}
