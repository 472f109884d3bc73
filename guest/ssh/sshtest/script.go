package sshtest

import (
	"fmt"
	"io"
	"regexp"
	"sync"
)

// Rule is one canned reply of a Script: a command matching Match (a
// regular expression, searched in the whole command line) gets Stdout,
// Stderr and Exit. Times > 0 limits how often the rule answers; after
// that, later rules get their turn (to script a value that changes).
type Rule struct {
	Match  string
	Stdout string
	Stderr string
	Exit   int
	Times  int
}

// Script answers commands from ordered rules: the first rule that matches
// and is not used up answers. A command no rule matches gets exit status
// 127 and a message on stderr naming it, the way a shell reports an
// unknown command, and is listed by Unmatched.
type Script struct {
	mu        sync.Mutex
	rules     []Rule
	re        []*regexp.Regexp
	used      []int
	unmatched []string
}

// NewScript compiles the rules; a bad expression panics (a test bug).
func NewScript(rules ...Rule) *Script {
	s := &Script{rules: rules, used: make([]int, len(rules))}
	for _, r := range rules {
		s.re = append(s.re, regexp.MustCompile(r.Match))
	}
	return s
}

// Handle answers cmd; use s.Handle as a Handler. Stdin is drained so a
// scripted `cat > file` upload completes.
func (s *Script) Handle(cmd string, stdin io.Reader) (string, string, int) {
	_, _ = io.Copy(io.Discard, stdin)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.Times > 0 && s.used[i] >= r.Times {
			continue
		}
		if s.re[i].MatchString(cmd) {
			s.used[i]++
			return r.Stdout, r.Stderr, r.Exit
		}
	}
	s.unmatched = append(s.unmatched, cmd)
	return "", fmt.Sprintf("sshtest: no rule matches %q\n", cmd), 127
}

// Unmatched lists the commands no rule answered.
func (s *Script) Unmatched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unmatched...)
}
