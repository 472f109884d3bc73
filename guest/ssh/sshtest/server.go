// Package sshtest provides SSH servers for tests: an in-process server
// (golang.org/x/crypto/ssh) whose commands are answered by a Handler — a Go
// function or a Script of canned replies, e.g. to play a FreeBSD host — and
// StartSSHD, which runs a real OpenSSH sshd inside a network namespace.
package sshtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	xssh "golang.org/x/crypto/ssh"

	labssh "github.com/lab-bench/lab/guest/ssh"
)

// Handler answers one exec'd command: the command line as the client
// built it (guest.ShellJoin of the argv), without the transport's pid
// wrapper. stdin is the session's input (read
// it to EOF to wait for the client to close the session or send a signal).
type Handler func(cmd string, stdin io.Reader) (stdout, stderr string, exit int)

// Options change how Start sets up a server. Zero fields are generated.
type Options struct {
	// Addr to listen on (default "127.0.0.1:0").
	Addr string
	// HostKey and ClientKey (ed25519) default to fresh keys.
	HostKey, ClientKey ed25519.PrivateKey
}

// Server is an in-process SSH server on loopback. It accepts only its
// client key, runs every "exec" request through the Handler, ignores "env"
// requests and replies with the exit status.
type Server struct {
	t       testing.TB
	ln      net.Listener
	handler Handler
	hostKey xssh.Signer
	client  ed25519.PrivateKey
	keyFile string

	mu        sync.Mutex
	commands  []string
	signals   []string
	dropAfter int // -1: never
	conns     map[net.Conn]bool
	wg        sync.WaitGroup
}

// NewServer starts a server on 127.0.0.1:0 with generated keys; it stops
// when the test ends.
func NewServer(t testing.TB, h Handler) *Server { return Start(t, h, Options{}) }

// Start starts a server with o; it stops when the test ends.
func Start(t testing.TB, h Handler, o Options) *Server {
	t.Helper()
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.HostKey == nil {
		o.HostKey = NewKey(t)
	}
	if o.ClientKey == nil {
		o.ClientKey = NewKey(t)
	}
	hs, err := xssh.NewSignerFromKey(o.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		t.Fatalf("sshtest: listen %s: %v", o.Addr, err)
	}
	s := &Server{t: t, ln: ln, handler: h, hostKey: hs, client: o.ClientKey, dropAfter: -1, conns: map[net.Conn]bool{}}
	s.keyFile = WriteKey(t, t.TempDir(), "id_ed25519", o.ClientKey)
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server and drops every connection.
func (s *Server) Close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Addr is "127.0.0.1:port".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Host is the address the server listens on, without the port.
func (s *Server) Host() string { return s.ln.Addr().(*net.TCPAddr).IP.String() }

// Port is the port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// HostKey is the server's public host key, one authorized_keys line.
func (s *Server) HostKey() string { return formatKey(s.hostKey.PublicKey()) }

// ClientKeyFile is the path of the client's private key (OpenSSH format,
// mode 0600) that the server accepts.
func (s *Server) ClientKeyFile() string { return s.keyFile }

// ClientSigner is the client's key as a signer.
func (s *Server) ClientSigner() xssh.Signer { return mustSigner(s.t, s.client) }

// Commands returns every command exec'd so far, in order.
func (s *Server) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

// Signals returns the signals clients sent ("KILL"), in order.
func (s *Server) Signals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.signals...)
}

// DropAfter makes the server answer n more commands and then drop the
// connection (without a reply) when the next one arrives, as a host that
// reboots or loses its network mid-session would.
func (s *Server) DropAfter(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAfter = len(s.commands) + n
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handleConn(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

func (s *Server) config() *xssh.ServerConfig {
	want := mustSigner(s.t, s.client).PublicKey().Marshal()
	cfg := &xssh.ServerConfig{
		PublicKeyCallback: func(_ xssh.ConnMetadata, k xssh.PublicKey) (*xssh.Permissions, error) {
			if string(k.Marshal()) == string(want) {
				return nil, nil
			}
			return nil, errors.New("sshtest: unknown client key")
		},
	}
	cfg.AddHostKey(s.hostKey)
	return cfg
}

func (s *Server) handleConn(c net.Conn) {
	defer c.Close()
	_, chans, reqs, err := xssh.NewServerConn(c, s.config())
	if err != nil {
		return
	}
	go xssh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(xssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.session(c, ch, creqs)
		}()
	}
}

// session serves one session channel: env requests are accepted and
// ignored, the first exec runs the handler, signals close the input.
func (s *Server) session(conn net.Conn, ch xssh.Channel, reqs <-chan *xssh.Request) {
	defer ch.Close()
	done := make(chan struct{})
	var once sync.Once
	for {
		var req *xssh.Request
		var ok bool
		select {
		case req, ok = <-reqs:
		case <-done:
			return
		}
		if !ok {
			return
		}
		switch req.Type {
		case "env":
			_ = req.Reply(true, nil)
		case "signal":
			var sig struct{ Name string }
			_ = xssh.Unmarshal(req.Payload, &sig)
			s.mu.Lock()
			s.signals = append(s.signals, sig.Name)
			s.mu.Unlock()
			ch.Close() // ends a handler blocked on stdin
		case "exec":
			var cmd struct{ Command string }
			if err := xssh.Unmarshal(req.Payload, &cmd); err != nil {
				_ = req.Reply(false, nil)
				continue
			}
			if inner, ok := unwrap(cmd.Command); ok {
				cmd.Command = inner
			}
			if s.record(cmd.Command) {
				conn.Close()
				return
			}
			_ = req.Reply(true, nil)
			once.Do(func() {
				go func() {
					defer close(done)
					stdout, stderr, exit := s.handler(cmd.Command, ch)
					_, _ = io.WriteString(ch, stdout)
					_, _ = io.WriteString(ch.Stderr(), stderr)
					_, _ = ch.SendRequest("exit-status", false, xssh.Marshal(struct{ Status uint32 }{uint32(exit)}))
				}()
			})
		default:
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
}

// record notes a command and reports whether the connection must drop.
func (s *Server) record(cmd string) (drop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropAfter >= 0 && len(s.commands) >= s.dropAfter {
		return true
	}
	s.commands = append(s.commands, cmd)
	return false
}

// NewKey generates an ed25519 key.
func NewKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// WriteKey writes k in OpenSSH private-key format to dir/name (mode 0600)
// and its public half to dir/name.pub; it returns the private key's path.
func WriteKey(t testing.TB, dir, name string, k ed25519.PrivateKey) string {
	t.Helper()
	block, err := xssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".pub", []byte(PublicKey(t, k)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// PublicKey is k's public half as one authorized_keys line.
func PublicKey(t testing.TB, k ed25519.PrivateKey) string {
	return formatKey(mustSigner(t, k).PublicKey())
}

func mustSigner(t testing.TB, k ed25519.PrivateKey) xssh.Signer {
	s, err := xssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func formatKey(k xssh.PublicKey) string {
	b := xssh.MarshalAuthorizedKey(k)
	return string(b[:len(b)-1])
}

// FreePort returns a loopback port that was free a moment ago (for a
// server that must start later on a known address).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// LoopbackAddr is "127.0.0.1:port".
func LoopbackAddr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// unwrap returns the command line inside one guest/ssh wrapped in its
// PIDScript, and whether line was wrapped: the server answers the command
// itself.
func unwrap(line string) (string, bool) {
	prefix := "sh -c '" + strings.ReplaceAll(labssh.PIDScript, "'", `'\''`) + "' sh "
	return strings.CutPrefix(line, prefix)
}
