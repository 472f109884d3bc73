package bhyve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
)

// HostError is a command on the bhyve host that failed: it keeps
// everything the command printed, so the message shows why.
type HostError struct {
	Host   string
	Cmd    string
	Exit   int
	Stdout string
	Stderr string
	Err    error // the connection was lost or the command could not start
}

func (e *HostError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bhyve host %s: %s", e.Host, e.Cmd)
	switch {
	case e.Err != nil && (errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded)):
		fmt.Fprintf(&b, ": %v", e.Err)
	case e.Err != nil:
		fmt.Fprintf(&b, ": connection to the host lost (%v); what was removed so far stays removed, run `lab destroy` again once the host answers", e.Err)
	default:
		fmt.Fprintf(&b, ": exit status %d", e.Exit)
	}
	for _, out := range []string{e.Stderr, e.Stdout} {
		if s := strings.TrimSpace(out); s != "" {
			fmt.Fprintf(&b, ": %s", s)
		}
	}
	return b.String()
}

func (e *HostError) Unwrap() error { return e.Err }

// lost reports whether err is a lost connection (not a command's failure).
func lost(err error) bool {
	var he *HostError
	return errors.As(err, &he) && he.Err != nil && !errors.Is(he.Err, context.Canceled) && !errors.Is(he.Err, context.DeadlineExceeded)
}

// transport returns the connection to the host, dialing it when there is
// none.
func (p *Provider) transport(ctx context.Context) (guest.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.host != nil {
		return p.host, nil
	}
	c, err := p.hostConfig()
	if err != nil {
		return nil, err
	}
	t, err := labssh.Dial(ctx, "bhyve host "+p.cfg.Host, c)
	if err != nil {
		return nil, err
	}
	p.host = t
	return t, nil
}

// hostConfig is how to log in to the host: the provider block's login,
// ssh-agent and known_hosts when asked for, and the ssh_config entry
// when host is a Host alias there (its HostName, Port, IdentityFile and
// ProxyJump fill what the block leaves unset).
func (p *Provider) hostConfig() (labssh.Config, error) {
	c := labssh.Config{User: p.cfg.User, Host: p.cfg.Host, Port: p.cfg.Port, PrivateKeyFile: p.cfg.PrivateKeyFile,
		KnownHostKey: p.cfg.HostKey, Signer: p.signer, DialTimeout: 10 * time.Second, Retry: p.dialRetry,
		Agent: p.cfg.Agent, KnownHostsFile: p.cfg.KnownHostsFile,
		// The host outlives every apply, like a borrowed machine: without
		// host_key or known_hosts_file its key is pinned in the workspace's
		// pin file (in Dial's context) on first contact, refused if it
		// changes.
		Pin: true}
	if p.cfg.SSHConfig == "" {
		return c, nil
	}
	sc, err := labssh.ReadSSHConfig(p.cfg.SSHConfig)
	if err != nil {
		return c, fmt.Errorf("bhyve host %s: %w", p.cfg.Host, err)
	}
	if c, err = c.Resolve(sc); err != nil {
		return c, err
	}
	if c.PrivateKeyFile == "" && !c.Agent {
		c.PrivateKeyFile = labssh.DefaultPrivateKeyFile
	}
	return c, nil
}

// drop forgets a broken connection so the next command dials again.
func (p *Provider) drop(t guest.Transport) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.host == t {
		_ = t.Close()
		p.host = nil
	}
}

// run runs argv on the host and returns its stdout; a failed command is
// a *HostError. A lost connection is forgotten, so the next command dials
// again; the command itself is not repeated (creating a bridge twice
// would leak one).
func (p *Provider) run(ctx context.Context, argv ...string) (string, error) {
	t, err := p.transport(ctx)
	if err != nil {
		return "", err
	}
	res, err := t.Run(ctx, guest.Cmd{Argv: argv})
	if err == nil {
		return string(res.Stdout), nil
	}
	he := &HostError{Host: p.cfg.Host, Cmd: guest.ShellJoin(argv), Exit: res.ExitCode, Stdout: string(res.Stdout), Stderr: string(res.Stderr), Err: err}
	var ce *guest.CommandError
	if errors.As(err, &ce) {
		he.Exit, he.Stderr, he.Err = ce.ExitCode, ce.Stderr, ce.Err
	}
	if lost(he) {
		p.drop(t)
	}
	return string(res.Stdout), he
}

// exit is the exit status of a command that ran and failed (0 for nil,
// -1 when it did not run to completion).
func exit(err error) int {
	var he *HostError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &he) && he.Err == nil:
		return he.Exit
	}
	return -1
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
