package operation

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// Interrupts returns two contexts derived from base: work is cancelled by the first SIGINT,
// SIGTERM or SIGHUP, teardown by the second, so one Ctrl-C stops the
// benchmarks but still cleans up, and a second abandons the cleanup (state
// then still lists what remains, for `lab destroy`). SIGHUP — the terminal
// or SSH session closed — used to kill lab outright, leaving the machines
// up and run.json "running"; it is caught unless lab was started with it
// ignored (nohup), which is kept.
//
// SIGPIPE — the reader of lab's output went away (`lab apply | tee log`
// and Ctrl-C, which kills tee too; `| head`) — used to kill lab at its
// next write, the same way. Now that write fails instead, and the first
// SIGPIPE stops the work like an interrupt; later ones (every write
// raises one) never abandon the teardown. A SIGPIPE comes from a write to
// any pipe or socket whose reader is gone — a database connection or an
// SSH session that died raises it too — so it stops the work only when
// lab's own standard output or error is the broken one (outputGone).
func Interrupts(base context.Context, w io.Writer) (work, teardown context.Context, stop func()) {
	work, cancelWork := context.WithCancel(base)
	teardown, cancelTeardown := context.WithCancel(base)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, interruptSignals()...)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		n := 0
		piped := false
		for {
			select {
			case <-done:
				return
			case <-pipe:
				if !piped && n == 0 && outputGone(1, 2) {
					fmt.Fprintln(w, "\nThe reader of lab's output is gone (SIGPIPE): stopping, then tearing down what was created.")
					cancelWork()
				}
				piped = true
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
		signal.Stop(pipe)
		close(done)
		cancelWork()
		cancelTeardown()
	}
}

// outputGone reports whether the reader of any of fds (lab's standard
// output and error) is gone: Linux's poll says POLLERR for the write end
// of a pipe with no reader (pipe_poll, fs/pipe.c) and POLLHUP or POLLERR
// for a socket whose peer closed; a terminal or a file says neither.
func outputGone(fds ...int) bool {
	pfds := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLOUT}
	}
	if _, err := unix.Poll(pfds, 0); err != nil {
		return false
	}
	for _, p := range pfds {
		if p.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}

// Interruptible returns base cancelled by SIGINT or SIGTERM, for a
// command that has nothing to tear down (plan dialling a back end).
func Interruptible(base context.Context) (context.Context, func()) {
	return signal.NotifyContext(base, os.Interrupt, syscall.SIGTERM)
}

// interruptSignals are the signals Interrupts catches: SIGINT, SIGTERM and,
// unless it is ignored (nohup), SIGHUP. Asking signal.Notify for an
// ignored SIGHUP would un-ignore it.
func interruptSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}
