// Package netns is the guest.Transport for guests that are Linux network
// namespaces on this machine (the local provider): every command runs as
// `ip netns exec NS [taskset -c CPUS] argv...`, without a shell.
//
// A namespace shares the host's filesystem (ip netns exec only bind-mounts
// /etc/netns/NS/* over /etc and remounts /sys), so Upload simply writes the
// path on this machine.
package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/atomicfile"
)

// waitDelay bounds how long Run waits for a killed command's output pipes
// to close (a grandchild outside the process group could hold them open).
const waitDelay = 2 * time.Second

// Transport runs commands inside one network namespace.
type Transport struct {
	guest string
	ns    string
	cpus  []int
}

var _ guest.Transport = (*Transport)(nil)

// New returns a transport for the guest named guestName (used in messages)
// living in network namespace nsName. An empty nsName runs commands in the
// caller's own namespace (useful for host-side commands and tests). When
// cpus is non-empty every command is pinned to those CPUs with taskset.
//
// Benchmark runners pin their own processes (they prefix taskset to argv so
// that pinning works over any transport); pass nil cpus for them.
func New(guestName, nsName string, cpus []int) *Transport {
	return &Transport{guest: guestName, ns: nsName, cpus: append([]int(nil), cpus...)}
}

// Pinned returns a copy of the transport whose commands run pinned to cpus
// (nil: not pinned).
func (t *Transport) Pinned(cpus []int) *Transport {
	return New(t.guest, t.ns, cpus)
}

// Name is the guest's name for messages.
func (t *Transport) Name() string { return t.guest }

// Namespace is the network namespace the commands run in.
func (t *Transport) Namespace() string { return t.ns }

// RunsConcurrently is true: each command is its own process on this
// machine (guest.Prefetch may start several at once).
func (t *Transport) RunsConcurrently() bool { return true }

// Close does nothing: a namespace needs no connection.
func (t *Transport) Close() error { return nil }

// argv is the full command line: ip netns exec NS [taskset -c CPUS] c.Argv.
func (t *Transport) argv(c guest.Cmd) []string {
	var argv []string
	if t.ns != "" {
		argv = append(argv, "ip", "netns", "exec", t.ns)
	}
	if len(t.cpus) > 0 {
		argv = append(argv, "taskset", "-c", CPUList(t.cpus))
	}
	return append(argv, c.Argv...)
}

// Run runs c inside the namespace and waits for it. A non-zero exit status
// is a *guest.CommandError carrying stderr. When ctx ends, the command's
// whole process group is killed and the error wraps ctx.Err().
func (t *Transport) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	if len(c.Argv) == 0 {
		return guest.Result{}, &guest.CommandError{Guest: t.guest, Err: errors.New("empty command")}
	}
	argv := t.argv(c)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Negative pid: the whole process group (iperf3 and any children).
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay
	cmd.Stdin = c.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	err := cmd.Run()
	res := guest.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if err == nil {
		return res, nil
	}
	ce := &guest.CommandError{Guest: t.guest, Cmd: c.Label(), ExitCode: res.ExitCode, Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		ce.Err = ctx.Err()
	case errors.As(err, &exitErr):
		// The exit status (or the signal) and stderr say it all.
		ce.Signal = guest.SignalOf(exitErr.Sys())
	default:
		ce.Err = err // could not start, or I/O failure
	}
	return res, ce
}

// Upload writes r to path. The namespace sees the host's filesystem, so the
// file is written here, atomically (see package atomicfile), with mode 0644.
// As root on the host, it replaces only a regular file (atomicfile.Replace):
// a symlink at path — planted in a shared /tmp, say — is refused, never
// followed.
func (t *Transport) Upload(ctx context.Context, path string, r io.Reader) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := atomicfile.Replace(path, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: upload: %w", t.guest, err)
	}
	return nil
}

// CPUList renders CPUs the way taskset -c takes them ("0,1").
func CPUList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}
