package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lab-bench/lab/guest"
)

// NftUncheckedError says why CheckWithHostNft could not run this host's
// nft: the ruleset was not syntax-checked (a warning, not a refusal).
type NftUncheckedError = guest.FirewallUncheckedError

// NftKernelError is a ruleset this host's nft parsed but its kernel
// refused (an expression or object type it lacks): the guest's kernel
// may differ, so it is worth a warning, not a refusal.
type NftKernelError = guest.FirewallKernelError

// nftCheckTimeout bounds one `nft -c` (about 20 ms in practice).
const nftCheckTimeout = 10 * time.Second

// nftErrorRE is nft's error line: "/dev/stdin:6:6-10: Error: syntax error, …".
var nftErrorRE = regexp.MustCompile(`(?m)^/dev/stdin:(\d+):(\d+)(?:-\d+)?: Error: (.*)$`)

// CheckWithHostNft has this host's nft check body as the Linux driver
// checks it on the guest before loading it (firewallCheckText, `nft -c`),
// inside a network namespace of its own (`unshare --net`), so that the
// host's rulesets are neither read nor changed; the namespace ends with
// the process. It needs root and nft (and unshare); without them it
// returns an *NftUncheckedError. A ruleset nft cannot parse is a
// *RulesetError at the line and column nft names, in body; one the host's
// kernel refuses is an *NftKernelError.
//
// The host's nft is a fair judge of syntax: it is the same language the
// guest's nft reads, lab's wrapper is the same text, and nothing of the
// host's own ruleset is involved. It is not a perfect one: an nft older
// or newer than the guest's may know fewer or more keywords (nftables
// adds syntax over releases, rarely removes it), and `nft -c` asks the
// kernel, whose modules may differ from the guest's. The driver's own
// `nft -c` on the guest stays the last word at apply.
func CheckWithHostNft(ctx context.Context, body string) error {
	if os.Geteuid() != 0 {
		return &NftUncheckedError{Reason: "lab does not run as root, and nft needs root even to check (it asks the kernel)"}
	}
	nft, err := exec.LookPath("nft")
	if err != nil {
		return &NftUncheckedError{Reason: "nft is not installed on this host (Debian/Ubuntu: apt-get install nftables)"}
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return &NftUncheckedError{Reason: "unshare is not installed on this host (util-linux)"}
	}
	ctx, cancel := context.WithTimeout(ctx, nftCheckTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, unshare, "--net", "--", nft, "-c", "-f", "-")
	cmd.Stdin = strings.NewReader(firewallCheckText(body))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || ctx.Err() != nil {
		return &NftUncheckedError{Reason: fmt.Sprintf("nft -c did not run: %v", err)}
	}
	return nftRefusal(body, stderr.String())
}

// nftRefusal turns nft's stderr about firewallCheckText(body) into an
// error at the place in body it names.
func nftRefusal(body, stderr string) error {
	m := nftErrorRE.FindStringSubmatch(stderr)
	if m == nil {
		// unshare itself failed (no CAP_SYS_ADMIN in a container), or nft
		// gave no location: not a verdict on the ruleset.
		return &NftUncheckedError{Reason: "nft -c failed without naming a place in the ruleset: " + firstLine(stderr)}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	msg := m[3]
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	re := rulesetPosition(body, line-checkPreambleLines, col)
	re.Msg = "nft -c: " + msg
	if strings.HasPrefix(msg, "Could not process rule") {
		return &NftKernelError{RulesetError: re}
	}
	return &re
}

// rulesetPosition is the place of line and column (1-based, bytes) of
// body, clamped to body (nft may point at lab's closing brace).
func rulesetPosition(body string, line, col int) RulesetError {
	lines := strings.SplitAfter(body, "\n")
	switch {
	case line < 1:
		return RulesetError{Line: 1, Column: 1}
	case line > len(lines):
		last := lines[len(lines)-1]
		return RulesetError{Line: len(lines), Column: max(len(last), 1), Offset: max(len(body)-1, 0)}
	}
	off := 0
	for _, l := range lines[:line-1] {
		off += len(l)
	}
	col = min(max(col, 1), max(len(strings.TrimSuffix(lines[line-1], "\n")), 1))
	return RulesetError{Line: line, Column: col, Offset: min(off+col-1, max(len(body)-1, 0))}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
