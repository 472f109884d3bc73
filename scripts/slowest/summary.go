package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent; the
// build-output and build-fail actions of go 1.24+ carry ImportPath).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

// timing is one finished test or subtest.
type timing struct {
	pkg, test, action string
	secs              float64
}

// summary reads a `go test -json` stream from r and writes to w what a
// CI log needs: every line that is not a test's own (package results, build
// errors, a timeout's panic), the whole output of each test that failed or
// was skipped at the top level, and at the end the n slowest tests and
// subtests with their seconds and the failed ones. A passing test's output
// is dropped, as `go test` without -v drops its t.Log lines. It reports
// whether anything failed.
//
// A top-level test that took at least progress seconds is also named as it
// ends ("took 61.2s: PASS pkg TestX"), so that a long package shows it is
// moving before its ok line.
func summary(r io.Reader, w io.Writer, n int, progress float64) (failed bool, err error) {
	s := summariser{w: w, held: map[string][]string{}, progress: progress}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if line := sc.Bytes(); len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			fmt.Fprintf(w, "%s\n", line) // not test2json's: go's own stderr
			continue
		}
		s.take(ev)
	}
	s.flushAll()
	s.report(n)
	return s.failed, sc.Err()
}

type summariser struct {
	w        io.Writer
	held     map[string][]string // output of running tests, by package and test
	order    []string            // held's keys in the order their tests started
	done     []timing
	fails    []timing
	failed   bool
	progress float64
}

func (s *summariser) take(ev event) {
	key := ev.Package + " " + ev.Test
	switch {
	case ev.Action == "build-output":
		fmt.Fprint(s.w, ev.Output)
	case ev.Action == "build-fail":
		s.failed = true // its package's fail event follows, naming the build
	case ev.Test == "":
		// A package's own lines come after its tests ended, unless the
		// binary died (a panic, the -timeout): the running tests' output
		// goes first then, before the FAIL line.
		s.flushPackage(ev.Package)
		fmt.Fprint(s.w, ev.Output)
		if ev.Action == "fail" {
			s.failed = true
			s.fails = append(s.fails, timing{pkg: ev.Package, action: "FAIL", secs: ev.Elapsed})
		}
	case ev.Action == "output":
		if _, ok := s.held[key]; !ok {
			s.order = append(s.order, key)
		}
		s.held[key] = append(s.held[key], ev.Output)
	case ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip":
		t := timing{pkg: ev.Package, test: ev.Test, action: strings.ToUpper(ev.Action), secs: ev.Elapsed}
		s.done = append(s.done, t)
		if ev.Action == "fail" {
			s.failed = true
			s.fails = append(s.fails, t)
		}
		if ev.Action == "fail" {
			s.printAncestors(ev.Package, ev.Test)
		}
		if ev.Action == "fail" || ev.Action == "skip" && !strings.Contains(ev.Test, "/") {
			fmt.Fprint(s.w, strings.Join(s.held[key], ""))
		}
		delete(s.held, key)
		if !strings.Contains(ev.Test, "/") && ev.Elapsed >= s.progress {
			fmt.Fprintf(s.w, "took %.1fs: %s %s %s\n", ev.Elapsed, t.action, ev.Package, ev.Test)
		}
	}
}

// printAncestors prints what the tests above a failed subtest wrote so far
// (their === RUN lines and logs), so that its failure reads in order; what
// they write later is held again.
func (s *summariser) printAncestors(pkg, test string) {
	for i := strings.Index(test, "/"); i >= 0; i = nextSlash(test, i) {
		key := pkg + " " + test[:i]
		fmt.Fprint(s.w, strings.Join(s.held[key], ""))
		if _, ok := s.held[key]; ok {
			s.held[key] = []string{}
		}
	}
}

// nextSlash returns the index of the next "/" in test after i, or -1.
func nextSlash(test string, i int) int {
	if j := strings.Index(test[i+1:], "/"); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// flushPackage prints what the package's still-running tests wrote: a
// test binary that died (a panic, the -timeout) ends them without an event.
func (s *summariser) flushPackage(pkg string) {
	for _, key := range s.order {
		if out, ok := s.held[key]; ok && strings.HasPrefix(key, pkg+" ") {
			fmt.Fprintf(s.w, "--- output of %s, still running when its package failed:\n%s", key, strings.Join(out, ""))
			delete(s.held, key)
		}
	}
}

// flushAll prints the output of tests the stream ended in the middle of.
func (s *summariser) flushAll() {
	for _, key := range s.order {
		if out, ok := s.held[key]; ok {
			fmt.Fprintf(s.w, "--- output of %s, unfinished when the stream ended:\n%s", key, strings.Join(out, ""))
			delete(s.held, key)
		}
	}
}

func (s *summariser) report(n int) {
	slow := append([]timing(nil), s.done...)
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].secs > slow[j].secs })
	if len(slow) > n {
		slow = slow[:n]
	}
	if len(slow) > 0 {
		fmt.Fprintf(s.w, "slowest %d tests and subtests (seconds, a parent's time includes its subtests'):\n", len(slow))
	}
	for _, t := range slow {
		fmt.Fprintf(s.w, "%8.1f  %-4s  %s %s\n", t.secs, t.action, t.pkg, t.test)
	}
	for _, t := range s.fails {
		fmt.Fprintf(s.w, "FAILED: %s\n", strings.TrimSpace(t.pkg+" "+t.test))
	}
}
