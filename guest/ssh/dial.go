package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// HostKeyChangedError is a guest presenting another host key than the one
// lab recorded (or the spec pinned). It is never retried.
type HostKeyChangedError struct {
	Guest string
	Addr  string
	Known string // authorized_keys line lab expected
	Seen  string // authorized_keys line the guest presented
	// Fix says how to accept the new key where it was pinned (a safe
	// command to run); empty: the key recorded in state for a guest lab
	// created, which `lab destroy` removes with the guest.
	Fix string
}

func (e *HostKeyChangedError) Error() string {
	fix := e.Fix
	if fix == "" {
		fix = "If the guest was recreated on purpose, run `lab destroy`: it removes the guest and its recorded key"
	}
	return fmt.Sprintf("%s (%s): host key changed: expected %s but the host presented %s. "+
		"Someone may be intercepting the connection; lab will not log in. %s",
		e.Guest, e.Addr, fingerprint(e.Known), fingerprint(e.Seen), fix)
}

// AuthError is a guest that accepted the connection but refused every key.
// It is never retried.
type AuthError struct {
	Guest, Addr, User string
	Err               error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("%s (%s): authentication as %s failed (is the public key in the guest's authorized_keys?): %v",
		e.Guest, e.Addr, e.User, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

func fingerprint(line string) string {
	k, err := ParseHostKey(line)
	if err != nil {
		return fmt.Sprintf("%q", truncate(line, 40))
	}
	return k.Type() + " " + xssh.FingerprintSHA256(k)
}

// Dial connects to the guest named guestName (used in messages). While the
// connection is refused or times out it retries with exponential backoff
// for c.Retry in total (at a short fixed interval while the connection is
// refused: the machine is up, its sshd not listening yet). A host key other than c.KnownHostKey fails at once
// with a *HostKeyChangedError; failed authentication fails at once with an
// *AuthError.
func Dial(ctx context.Context, guestName string, c Config) (*Transport, error) {
	signers, done, err := c.keys()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", guestName, err)
	}
	defer done()
	if c.PinFile == "" {
		c.PinFile = PinFileFrom(ctx)
	}
	if _, err := newHostKeyCheck(guestName, c.Addr(), c); err != nil {
		return nil, fmt.Errorf("%s: %w", guestName, err)
	}
	var jump *Transport
	if c.Jump != nil {
		// A jump host is a long-lived machine: pinned like a borrowed one
		// unless a known_hosts file or a host key decides.
		hop := *c.Jump
		hop.Pin = true
		if hop.PinFile == "" {
			hop.PinFile = c.PinFile
		}
		if jump, err = Dial(ctx, guestName+" jump host "+c.Jump.Host, hop); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(c.Retry)
	backoff := firstBackoff
	for attempt := 1; ; attempt++ {
		t, err := dialOnce(ctx, guestName, c, signers, jump)
		if err == nil {
			return t, nil
		}
		var hk *HostKeyChangedError
		var ae *AuthError
		var uh *UnknownHostError
		if errors.As(err, &hk) || errors.As(err, &ae) || errors.As(err, &uh) || ctx.Err() != nil {
			closeJump(jump)
			return nil, err
		}
		wait := min(backoff, time.Until(deadline))
		var ce *connectError
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			// The guest is up and its sshd about to listen: a short fixed
			// interval, not a growing one, so a boot is not padded by seconds.
			wait = min(refusedRetry, time.Until(deadline))
		case c.ConnectPoll > 0 && errors.As(err, &ce):
			// The poll already waited out its DialTimeout: poll again at once.
			wait = min(c.ConnectPoll, time.Until(deadline))
		}
		if wait <= 0 {
			closeJump(jump)
			if attempt > 1 {
				return nil, fmt.Errorf("%w (gave up after %d attempts in %v)", err, attempt, c.Retry)
			}
			return nil, err
		}
		select {
		case <-ctx.Done():
			closeJump(jump)
			return nil, fmt.Errorf("%s: %w (last error: %v)", guestName, ctx.Err(), err)
		case <-time.After(wait):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// connectError is a failed TCP connect to the guest (not through a jump
// host); its text and chain are the dial error's.
type connectError struct{ err error }

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// pollConnect is Config.ConnectPoll's connect: dial starts one attempt
// (bounded by the context it is given); a new one starts every `every`
// until one connects or ctx ends, each given up after window. The first
// connection wins; every other attempt is cancelled, and one that
// connected all the same is closed, before pollConnect returns. The error
// is the last attempt's (a refusal, a timeout) when none connected.
func pollConnect(ctx context.Context, dial func(context.Context) (net.Conn, error), every, window time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		c   net.Conn
		err error
	}
	results := make(chan result)
	pending := 0
	var lastErr error
	// drain waits for the attempts still under way (cancelled) and closes
	// any that connected anyway. An attempt that failed by itself (a
	// refusal that came as the poll ended) is kept as the last error: it
	// says more than the cancellation the others return.
	drain := func() {
		cancel()
		for ; pending > 0; pending-- {
			r := <-results
			switch {
			case r.err == nil:
				_ = r.c.Close()
			case !isCancel(r.err):
				lastErr = r.err
			}
		}
	}
	next := time.NewTimer(0)
	defer next.Stop()
	for {
		select {
		case <-next.C:
			pending++
			go func() {
				actx, acancel := context.WithTimeout(ctx, window)
				defer acancel()
				c, err := dial(actx)
				results <- result{c, err}
			}()
			next.Reset(every)
		case r := <-results:
			pending--
			if r.err == nil {
				drain()
				return r.c, nil
			}
			if !isCancel(r.err) || lastErr == nil {
				// An attempt the poll's own end cancelled never hides
				// one that failed by itself.
				lastErr = r.err
			}
		case <-ctx.Done():
			drain()
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			return nil, lastErr
		}
	}
}

// isCancel reports whether err is a context's end, not a failure of the
// attempt itself.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func closeJump(j *Transport) {
	if j != nil {
		_ = j.Close()
	}
}

// dialOnce makes one connection and SSH handshake: a TCP connection, or
// through jump a direct-tcpip channel from the jump host (as ssh -J).
func dialOnce(ctx context.Context, guestName string, c Config, signers []xssh.Signer, jump *Transport) (*Transport, error) {
	addr := c.Addr()
	dctx, cancel := context.WithTimeout(ctx, c.dialTimeout())
	defer cancel()
	var conn net.Conn
	var err error
	if jump != nil {
		conn, err = jump.client.DialContext(dctx, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("%s: connect %s through %s: %w", guestName, addr, jump.addr, err)
		}
	} else {
		dial := func(ctx context.Context) (net.Conn, error) { return (&net.Dialer{}).DialContext(ctx, "tcp", addr) }
		if c.ConnectPoll > 0 {
			conn, err = pollConnect(dctx, dial, c.ConnectPoll, connectPollWindow)
		} else {
			conn, err = dial(dctx)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: connect %s: %w", guestName, addr, &connectError{err})
		}
		if c.ConnectPoll > 0 {
			// DialTimeout bounded the poll; the handshake gets its own.
			var hcancel context.CancelFunc
			dctx, hcancel = context.WithTimeout(ctx, c.dialTimeout())
			defer hcancel()
		}
	}
	// The handshake has no context: a deadline on the connection bounds it,
	// and cancelling ctx closes the connection.
	_ = conn.SetDeadline(time.Now().Add(c.dialTimeout()))
	stop := context.AfterFunc(dctx, func() { conn.Close() })
	defer stop()

	check, err := newHostKeyCheck(guestName, addr, c)
	if err != nil {
		conn.Close()
		return nil, err
	}
	cfg := &xssh.ClientConfig{
		User:            c.user(),
		Auth:            []xssh.AuthMethod{xssh.PublicKeys(signers...)},
		HostKeyCallback: check.callback,
		Timeout:         c.dialTimeout(),
	}
	cfg.HostKeyAlgorithms = check.algorithms()
	cc, chans, reqs, err := xssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		conn.Close()
		switch {
		case check.failed != nil:
			return nil, check.failed
		case check.seen != nil && strings.Contains(err.Error(), "unable to authenticate"):
			return nil, &AuthError{Guest: guestName, Addr: addr, User: c.user(), Err: err}
		}
		return nil, fmt.Errorf("%s: ssh %s: %w", guestName, addr, err)
	}
	_ = conn.SetDeadline(time.Time{})
	if check.pinNew {
		if err := addPin(check.pinFile, guestName, addr, check.seen); err != nil {
			_ = cc.Close()
			return nil, err
		}
	}
	return &Transport{guest: guestName, addr: addr, client: xssh.NewClient(cc, chans, reqs), hostKey: FormatKey(check.seen), jump: jump}, nil
}

// hostKeyAlgorithms makes the server present the key type that was
// recorded (a host with ed25519 and RSA keys would otherwise be free to
// show the other one and look "changed").
func hostKeyAlgorithms(k xssh.PublicKey) []string {
	if k.Type() == xssh.KeyAlgoRSA {
		return []string{xssh.KeyAlgoRSASHA512, xssh.KeyAlgoRSASHA256, xssh.KeyAlgoRSA}
	}
	return []string{k.Type()}
}
