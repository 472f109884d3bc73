package freebsd_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/guest/guesttest"
	"github.com/lab-bench/lab/internal/golden"
)

// The pf tests run against a SCRIPTED host: guesttest.Recorder answers
// each command with a reply written here from freebsd-src's sources (the
// comments say where), nothing runs on a FreeBSD machine.

// uploadLogger is the recorder with Upload logged too ("$ upload PATH"
// and the file's lines), so that a transcript shows the pf.conf lab wrote.
type uploadLogger struct{ *guesttest.Recorder }

func (u uploadLogger) Upload(_ context.Context, path string, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	fmt.Fprintf(&u.Log, "$ upload %s\n", path)
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		fmt.Fprintf(&u.Log, "  < %s\n", l)
	}
	return nil
}

// pfInfo is the start of `pfctl -s info`, built with print_status's own
// formats (sbin/pfctl/pfctl_parser.c): the status line padded with %-44s,
// "%15s\n\n" for the debug level, then the state table's header and first
// counter.
func pfInfo(status string) string {
	return fmt.Sprintf("%-44s%15s\n\n", status, "Debug: Urgent") +
		fmt.Sprintf("%-27s %14s %16s\n", "State Table", "Total", "Rate") +
		fmt.Sprintf("  %-25s %14d %14s\n", "current entries", 2, "")
}

var (
	// print_status: "Status: %s for %u days %.2u:%.2u:%.2u" once pf has
	// run, "Status: %s" when it never has (since == 0).
	pfEnabledInfo  = pfInfo("Status: Enabled for 0 days 00:00:03")
	pfDisabledInfo = pfInfo("Status: Disabled")
	// pfctl_show_rules prints each rule with print_rule and "\n": "pass
	// all no state" (a pass rule without keep_state), "pass all flags S/SA
	// keep state" (parse.y's defaults for "pass all keep state").
	keepStateRules = "pass all no state\npass all flags S/SA keep state\n"
	// A ruleset of the guest's own (/etc/pf.conf), as print_rule shows it.
	foreignRules = "block drop in all\npass out all flags S/SA keep state\n"
)

// pfHost scripts a FreeBSD 14 guest with pf.ko loaded (kldstat -q -m pf:
// exit 0), pf disabled and no ruleset, and no lab file (test -e: exit 1).
func pfHost(t *testing.T) map[string][]reply {
	m := bhyveGuest(t)
	m["kldstat -q -m pf"] = []reply{{}}
	m["pfctl -s info"] = []reply{{Out: pfDisabledInfo}}
	m["pfctl -s rules"] = []reply{{}}
	m["pfctl -s nat"] = []reply{{}}
	// test(1): 1 when the file does not exist.
	m["test -e /var/run/lab-pf.enabled"] = []reply{{Code: 1}}
	// pfctl_enable / pfctl_disable print to stderr; exit status 0.
	m["pfctl -e"] = []reply{{Stderr: "pf enabled\n"}}
	m["pfctl -d"] = []reply{{Stderr: "pf disabled\n"}}
	return m
}

func TestPFTranscripts(t *testing.T) {
	ours := map[string][]reply{"test -e /var/run/lab-pf.conf": {{}}}
	cases := []struct {
		name     string
		s        guest.Settings
		replies  map[string][]reply
		observe  bool
		wantFail bool
	}{
		// pf.ko not loaded (kldstat -q -m pf: exit 1): lab loads it, loads
		// the ruleset, remembers it enables pf, enables it.
		{name: "pf-keep-state-loads-module", s: guest.Settings{Firewall: "keep-state"},
			replies: map[string][]reply{"kldstat -q -m pf": {{Code: 1}}}},
		// pf already enabled with an empty ruleset: lab loads its ruleset
		// and does not enable pf (nor disable it at teardown).
		{name: "pf-skip-already-enabled", s: guest.Settings{Firewall: "skip"},
			replies: map[string][]reply{"pfctl -s info": {{Out: pfEnabledInfo}},
				// ifconfig -l: names separated by single blanks, one line.
				"ifconfig -l": {{Out: "vtnet0 vtnet1 lo0\n"}}}},
		// The next cell: lab's own ruleset is loaded (the lab file exists),
		// lab replaces it.
		{name: "pf-replaces-own-ruleset", s: guest.Settings{Firewall: "modulate-state-scrub"},
			replies: with(ours, map[string][]reply{"pfctl -s info": {{Out: pfEnabledInfo}}, "pfctl -s rules": {{Out: keepStateRules}}})},
		// A ruleset lab did not load: refused, nothing written.
		{name: "pf-foreign-ruleset-refused", s: guest.Settings{Firewall: "keep-state"}, wantFail: true,
			replies: map[string][]reply{"pfctl -s info": {{Out: pfEnabledInfo}}, "pfctl -s rules": {{Out: foreignRules}}}},
		// Translation rules only (pfctl_show_nat, print_rule's "nat" with
		// " -> " and the pool): pfctl -f would replace them too, refused.
		{name: "pf-foreign-nat-refused", s: guest.Settings{Firewall: "no-state"}, wantFail: true,
			replies: map[string][]reply{"pfctl -s nat": {{Out: "nat on vtnet0 inet from 10.0.0.0/24 to any -> 192.0.2.1\n"}}}},
		// A raw pf.conf body: seed 001's "no state" walk over a rule list.
		{name: "pf-raw-body", s: guest.Settings{Firewall: "set skip on lo0\nblock in quick proto tcp to port 20000\nblock in quick proto tcp to port 20001\npass all no state"}},
		// pfctl -f refuses it: parse.y's yyerror prints "FILE:LINE: " and
		// the message, pfctl_rules then "Syntax error in config file: pf
		// rules not loaded" (exit 1) and rolls back: pf is not enabled.
		{name: "pf-syntax-error", s: guest.Settings{Firewall: "pass all\npass bogus"}, wantFail: true,
			replies: map[string][]reply{"pfctl -f /var/run/lab-pf.conf": {{Code: 1,
				Stderr: "/var/run/lab-pf.conf:2: syntax error\npfctl: Syntax error in config file: pf rules not loaded\n"}}}},
		// Teardown after lab enabled pf: disable, empty ruleset, forget.
		{name: "pf-teardown-lab-enabled", s: guest.Settings{},
			replies: with(ours, map[string][]reply{"test -e /var/run/lab-pf.enabled": {{}}})},
		// Teardown when pf ran before lab: the empty ruleset only.
		{name: "pf-teardown-was-enabled", s: guest.Settings{}, replies: ours},
		// Someone disabled pf meanwhile: pfctl_disable's "pf not enabled"
		// (ENOENT, exit 1) is where teardown leaves it anyway.
		{name: "pf-teardown-already-disabled", s: guest.Settings{},
			replies: with(ours, map[string][]reply{"test -e /var/run/lab-pf.enabled": {{}},
				"pfctl -d": {{Code: 1, Stderr: "pfctl: pf not enabled\n"}}})},
		// pf.ko unloaded since lab loaded its ruleset (kldstat -q -m pf:
		// exit 1): nothing of pf's is left, only lab's files.
		{name: "pf-teardown-module-gone", s: guest.Settings{},
			replies: with(ours, map[string][]reply{"kldstat -q -m pf": {{Code: 1}}})},
		{name: "pf-observe-keep-state", observe: true, s: guest.Settings{Firewall: "keep-state"},
			replies: map[string][]reply{"pfctl -s info": {{Out: pfEnabledInfo}}, "pfctl -s rules": {{Out: keepStateRules}}}},
		// pf disabled under lab's ruleset: Verify says the firewall is
		// missing.
		{name: "pf-observe-disabled", observe: true, s: guest.Settings{Firewall: "keep-state"},
			replies: map[string][]reply{"pfctl -s rules": {{Out: keepStateRules}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newFake(with(pfHost(t), tc.replies))
			f := uploadLogger{rec}
			js, _ := json.Marshal(tc.s)
			fmt.Fprintf(&rec.Log, "# scripted host (replies from freebsd-src, see pf_test.go)\n# vtnet0 settings: %s\n", js)
			var err error
			if tc.observe {
				var o guest.Observed
				o, err = freebsd.New().Observe(context.Background(), f, "vtnet0", tc.s)
				fmt.Fprintf(&rec.Log, "# observed firewall: %q\n# warnings: %q\n# verify: %q\n", o.Firewall, o.Warnings, guest.Verify(tc.s, o))
			} else {
				err = freebsd.New().Apply(context.Background(), f, "vtnet0", tc.s)
			}
			fmt.Fprintf(&rec.Log, "# error: %v\n", err)
			if (err != nil) != tc.wantFail {
				t.Errorf("error = %v, want failure %v", err, tc.wantFail)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), rec.Log.String())
		})
	}
}

func with(a, b map[string][]reply) map[string][]reply {
	m := map[string][]reply{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// TestPFPresetConf: the pf.conf of every preset, as a golden file
// (testdata/pf-PRESET.conf; -update rewrites them). The skip preset skips
// the interfaces given (ifconfig -l's), the others lo0 alone.
func TestPFPresetConf(t *testing.T) {
	ifaces := []string{"lo0", "vtnet0", "vtnet1"}
	for _, p := range freebsd.PFPresets {
		t.Run(p.Name, func(t *testing.T) {
			conf := freebsd.PFConf(p, ifaces)
			if err := freebsd.CheckPF(conf); err != nil {
				t.Errorf("the preset's own pf.conf is refused: %v", err)
			}
			golden.Check(t, filepath.Join("testdata", "pf-"+p.Name+".conf"), conf)
		})
	}
}

// TestCheckPF: what a FreeBSD firewall value may be, and where a refusal
// points.
func TestCheckPF(t *testing.T) {
	for _, tt := range []struct {
		body      string
		line, col int    // 0: accepted
		msg       string // part of the refusal
	}{
		{body: "keep-state"},
		{body: "  modulate-state-scrub\n"},
		{body: "set skip on lo0\npass all no state"},
		{body: "pass all # include is only a comment here"},
		{body: `pass all label "includes"`},
		{body: `pass all label "file-server"`},
		// lgetc joins a line ending in a backslash: the comment goes on.
		{body: "pass all # a comment \\\ninclude \"/etc/pf.conf\""},
		// A quoted string spans lines (yylex skips the newline).
		{body: "pass all label \"a\nb\""},
		// Where pf would read the keyword: after a string that began at a
		// token (x" is a word, "b#" a string), joined by a backslash, or in
		// a macro's value (newlines inside quotes are dropped).
		{body: `pass all label x"a "b#" include "/etc/pf.conf"`, line: 1, col: 25, msg: `"include" is not allowed`},
		{body: `inc\lude "/etc/pf.conf"`, line: 1, col: 1, msg: `"include" is not allowed`},
		{body: "pass all\ninc\\\nlude \"/etc/pf.conf\"", line: 2, col: 1, msg: `"include" is not allowed`},
		{body: "m = \"inc\nlude \\\"/etc/pf.conf\\\"\"\n$m", line: 1, col: 5, msg: "a macro's value"},
		{body: `pass all label "include"`, line: 1, col: 16, msg: "a macro's value"},
		{body: "table <t> { 10.0.0.1 }\npass from <t>"},
		{body: "keep_state", line: 1, col: 1, msg: "not a pf preset"},
		{body: "\n  stateful", line: 2, col: 3, msg: "not a pf preset"},
		{body: "pass all\ninclude \"/etc/pf.conf\"", line: 2, col: 1, msg: `"include" is not allowed`},
		{body: "pass all\n  load anchor x from \"/tmp/x\"", line: 2, col: 3, msg: "load anchor"},
		{body: "table <t> file \"/etc/hosts\"", line: 1, col: 11, msg: `"file"`},
		{body: "set fingerprints \"/etc/master.passwd\"\npass all", line: 1, col: 5, msg: "set fingerprints"},
		{body: "pass all\x00", line: 1, col: 9, msg: "control character"},
		{body: "pass all label \"x\npass", line: 1, col: 16, msg: "unterminated"},
		{body: "pass all label 'x", line: 1, col: 16, msg: "unterminated"},
		{body: "pass all\n" + strings.Repeat("#", freebsd.MaxPFConf), line: 1, col: 1, msg: "at most"},
	} {
		err := freebsd.CheckPF(tt.body)
		if tt.line == 0 {
			if err != nil {
				t.Errorf("%q refused: %v", tt.body, err)
			}
			continue
		}
		var re *guest.RulesetError
		if !errors.As(err, &re) || re.Line != tt.line || re.Column != tt.col || !strings.Contains(re.Msg, tt.msg) {
			t.Errorf("%.40q: got %v, want line %d column %d %q", tt.body, err, tt.line, tt.col, tt.msg)
		}
	}
}

// TestPFBodyIsNeverAWord: whatever a pf.conf body holds reaches the guest
// as the uploaded file's content, never as a word of a command.
func TestPFBodyIsNeverAWord(t *testing.T) {
	for _, evil := range []string{"; rm -rf /", "$(x)", "`x`", "a|b", "a&b", "a>b", "'x'", `"x"`, "-x", "a\\b", "a\tb"} {
		rec := newFake(pfHost(t))
		body := "pass all no state\n# " + evil
		if err := freebsd.New().Apply(context.Background(), uploadLogger{rec}, "vtnet0", guest.Settings{Firewall: body}); err != nil {
			t.Fatalf("%q: %v", evil, err)
		}
		for _, l := range strings.Split(rec.Log.String(), "\n") {
			if strings.HasPrefix(l, "$ ") && strings.Contains(l, evil) {
				t.Errorf("%q reached a command line: %s", evil, l)
			}
		}
		if !strings.Contains(rec.Log.String(), "  < # "+evil) {
			t.Errorf("%q is not in the uploaded file:\n%s", evil, rec.Log.String())
		}
	}
}

// TestParsePFStatus: print_status's two status lines, and what is not one.
func TestParsePFStatus(t *testing.T) {
	for _, tt := range []struct{ out, want string }{
		{pfEnabledInfo, "Enabled"},
		{pfDisabledInfo, "Disabled"},
		{"Status: Enabled\n", "Enabled"},
		{"", ""},
		{"pfctl: /dev/pf: No such file or directory\n", ""},
		{"Status: Running\n", ""},
	} {
		got, err := freebsd.ParsePFStatus(tt.out)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("%q: got %q, %v; want %q", tt.out, got, err, tt.want)
		}
	}
}
