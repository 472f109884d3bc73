package linux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCheckWithHostNft runs this host's real nft -c, in a network
// namespace of its own, on rulesets lab's Linux driver would load.
func TestCheckWithHostNft(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: nft -c asks the kernel")
	}
	if _, err := exec.LookPath("nft"); err != nil {
		t.Skip("needs nft (package nftables; scripts/install-deps.sh)")
	}
	tests := []struct {
		name, body string
		want       string // "", "syntax" or "kernel"
		line, col  int
		msg        string
	}{
		{"valid", "chain c {\n  type filter hook forward priority 0; policy accept;\n  tcp dport 5201 counter accept\n}", "", 0, 0, ""},
		{"empty chain", "chain c {\n}", "", 0, 0, ""},
		{"misspelt keyword", "chain c {\n  type filter hook forward priority 0;\n  tcp dprot 5201 accept\n}", "syntax", 3, 7, "syntax error"},
		// nft takes "acept" for a value and stumbles at the line's end.
		{"misspelt verdict", "chain c {\n  tcp dport 5201 acept\n}", "syntax", 2, 22, "syntax error, unexpected newline"},
		{"undeclared set", "set s { type ipv4_addr; }\nchain c {\n  ip saddr @nos accept\n}", "syntax", 3, 12, "No such file or directory"},
		{"jump to no chain", "chain c {\n  jump nochain\n}", "kernel", 2, 8, "Could not process rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := CheckWithHostNft(context.Background(), tt.body)
			t.Logf("nft -c in a new namespace: %s", time.Since(start).Round(time.Millisecond))
			var kernel *NftKernelError
			var re *RulesetError
			switch {
			case tt.want == "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			case tt.want == "kernel" && errors.As(err, &kernel):
				re = &kernel.RulesetError
			case tt.want == "syntax" && errors.As(err, &re):
			default:
				t.Fatalf("got %T %v, want a %s error", err, err, tt.want)
			}
			if re.Line != tt.line || re.Column != tt.col || !strings.Contains(re.Msg, tt.msg) {
				t.Errorf("got line %d column %d %q, want %d:%d %q", re.Line, re.Column, re.Msg, tt.line, tt.col, tt.msg)
			}
			lines := strings.Split(tt.body, "\n")
			off := len(strings.Join(lines[:re.Line-1], "\n")) + 1 + re.Column - 1
			if re.Line == 1 {
				off = re.Column - 1
			}
			if re.Offset != off {
				t.Errorf("offset %d, want %d", re.Offset, off)
			}
		})
	}
}

// TestCheckWithHostNftUnavailable: without nft the ruleset is said to be
// unchecked, never passed in silence.
func TestCheckWithHostNftUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := CheckWithHostNft(context.Background(), "chain c {\n}")
	var un *NftUncheckedError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), "not syntax-checked") {
		t.Fatalf("got %v, want an NftUncheckedError", err)
	}
}

// TestNftRefusalPlaces maps nft's error lines (as nft 1.0.6 prints them)
// to places in the body, clamped to it.
func TestNftRefusalPlaces(t *testing.T) {
	body := "chain c {\n  x\n}"
	tests := []struct {
		stderr            string
		line, col, offset int
	}{
		{"/dev/stdin:5:3-3: Error: syntax error, unexpected newline\n  x\n  ^\n", 2, 3, 12},
		{"/dev/stdin:7:1-1: Error: syntax error, unexpected end of file\n", 3, 1, 14},
		{"/dev/stdin:2:1-6: Error: Could not process rule: Operation not supported\n", 1, 1, 0},
	}
	for _, tt := range tests {
		var re *RulesetError
		var kernel *NftKernelError
		err := nftRefusal(body, tt.stderr)
		if errors.As(err, &kernel) {
			re = &kernel.RulesetError
		} else if !errors.As(err, &re) {
			t.Fatalf("%q: %T %v", tt.stderr, err, err)
		}
		if re.Line != tt.line || re.Column != tt.col || re.Offset != tt.offset {
			t.Errorf("%q: got %d:%d @%d, want %d:%d @%d", tt.stderr, re.Line, re.Column, re.Offset, tt.line, tt.col, tt.offset)
		}
	}
	var un *NftUncheckedError
	if err := nftRefusal(body, "unshare: unshare failed: Operation not permitted\n"); !errors.As(err, &un) {
		t.Errorf("unshare failing: got %v, want unchecked", err)
	}
}
