package local

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/lab-bench/lab/guest"
)

// addNamespace makes network namespace ns carrying tag as its loopback's
// alias, in the one order that never shows an untagged namespace under
// lab's name: a new namespace is made on one thread (unshare), its
// loopback tagged from inside it, and only then named — `ip netns attach
// NS TID` bind-mounts the thread's namespace on /run/netns/NS
// (ip-netns(8), "ip netns attach NAME PID"; /proc/TID/ns/net is the
// thread's namespace) — and the thread goes back to lab's namespace.
//
// A kill before the attach leaves nothing: the namespace ends with the
// thread that holds it. What remains possible is a kill inside `ip netns
// attach`, between its creating the file and mounting the namespace on it
// (iproute2 ip/ipnetns.c, netns_add), which leaves a half-made
// /run/netns/NS that Delete of the pending record removes.
func (p *Provider) addNamespace(ctx context.Context, ns, tag string) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("open this thread's network namespace: %w", err)
			return
		}
		defer func() { _ = unix.Close(home) }()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("unshare a network namespace: %w", err)
			return
		}
		errc <- p.tagAndName(ctx, ns, tag)
		// Back home before the thread runs anything else. Should that
		// fail, the thread stays locked: Go ends it (or, the main thread,
		// parks it) when this goroutine returns, so nothing else ever runs
		// in the new namespace.
		if unix.Setns(home, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
	}()
	return <-errc
}

// tagAndName runs on the locked thread, in the new namespace: commands
// started from it are forked from this thread and run in its namespace.
func (p *Provider) tagAndName(ctx context.Context, ns, tag string) error {
	if _, err := p.exec(ctx, "ip", "link", "set", "dev", "lo", "alias", tag); err != nil {
		return fmt.Errorf("tag the new namespace: %w", err)
	}
	if _, err := p.exec(ctx, "ip", "netns", "attach", ns, strconv.Itoa(unix.Gettid())); err != nil {
		var ce *guest.CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Stderr, "is unknown") {
			// iproute2's do_netns: `Command "attach" is unknown, try "ip
			// netns help".` (ip/ipnetns.c) — an iproute2 before 5.0.
			return fmt.Errorf("name the new namespace: this iproute2 has no `ip netns attach` (iproute2 5.0 or later has): %w", err)
		}
		return fmt.Errorf("name the new namespace: %w", err)
	}
	return nil
}
