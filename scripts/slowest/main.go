// Command slowest reads `go test -json` on stdin and writes a CI log: the
// package results, the output of failed tests, and the slowest tests and
// subtests with their seconds (make test pipes each test step through it).
// It exits 1 when a test, a package or a build failed.
//
//	go test -json ./... 2>&1 | go run ./scripts/slowest -n 20
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	n := flag.Int("n", 20, "how many of the slowest tests and subtests to list")
	progress := flag.Float64("progress", 10, "name each top-level test that took at least this many seconds as it ends")
	flag.Parse()
	failed, err := summary(os.Stdin, os.Stdout, *n, *progress)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slowest: reading go test -json:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
