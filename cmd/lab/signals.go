package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// interrupts returns two contexts derived from base: work is cancelled by the first SIGINT
// or SIGTERM, teardown by the second, so one Ctrl-C stops the benchmarks
// but still cleans up, and a second abandons the cleanup (state then
// still lists what remains, for `lab destroy`).
func interrupts(base context.Context, w io.Writer) (work, teardown context.Context, stop func()) {
	work, cancelWork := context.WithCancel(base)
	teardown, cancelTeardown := context.WithCancel(base)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				n++
				if n == 1 {
					fmt.Fprintf(w, "\n%s received: stopping, then tearing down what was created. Press Ctrl-C again to abandon the teardown.\n", s)
					cancelWork()
				} else {
					fmt.Fprintf(w, "\n%s received again: abandoning teardown; run `lab destroy` to remove what is left.\n", s)
					cancelTeardown()
				}
			}
		}
	}()
	return work, teardown, func() {
		signal.Stop(ch)
		close(done)
		cancelWork()
		cancelTeardown()
	}
}

// interruptible returns base cancelled by SIGINT or SIGTERM, for a
// command that has nothing to tear down (plan dialling a back end).
func interruptible(base context.Context) (context.Context, func()) {
	return signal.NotifyContext(base, os.Interrupt, syscall.SIGTERM)
}
