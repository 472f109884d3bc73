package ssh_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// echo replies with the command line it received (and stdin after a "|").
func echo(cmd string, stdin io.Reader) (string, string, int) {
	in, _ := io.ReadAll(stdin)
	switch {
	case strings.HasPrefix(cmd, "fail"):
		return "", "it broke\n", 3
	case strings.HasPrefix(cmd, "sleep"):
		return "", "", 0 // stdin was read to EOF: the session closed
	}
	if len(in) > 0 {
		return cmd + "|" + string(in), "", 0
	}
	return cmd, "", 0
}

func dial(t *testing.T, s *sshtest.Server, known string) *labssh.Transport {
	t.Helper()
	tr, err := labssh.Dial(context.Background(), "pair.t.server", config(s, known))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func config(s *sshtest.Server, known string) labssh.Config {
	return labssh.Config{User: "root", Host: s.Host(), Port: s.Port(), PrivateKeyFile: s.ClientKeyFile(),
		KnownHostKey: known, DialTimeout: 2 * time.Second}
}

func TestRunQuotesEveryWord(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	tr := dial(t, s, "")
	tests := []struct {
		argv []string
		want string // the command line the server receives
	}{
		{[]string{"ip", "link", "show"}, "ip link show"},
		{[]string{"echo", "two words"}, "echo 'two words'"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"echo", "$(reboot)", "`id`", "a;b", "x|y", ""}, "echo '$(reboot)' '`id`' 'a;b' 'x|y' ''"},
		{[]string{"sysctl", "-w", "net.ipv4.tcp_rmem=4096 131072 6291456"}, "sysctl -w 'net.ipv4.tcp_rmem=4096 131072 6291456'"},
	}
	for _, tc := range tests {
		res, err := tr.Run(context.Background(), guest.Cmd{Argv: tc.argv})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.Stdout); got != tc.want {
			t.Errorf("%q arrived as %q, want %q", tc.argv, got, tc.want)
		}
	}
}

func TestExitStatusAndStderr(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	tr := dial(t, s, "")
	res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"fail", "now"}})
	var ce *guest.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want *guest.CommandError", err)
	}
	if ce.ExitCode != 3 || res.ExitCode != 3 || ce.Stderr != "it broke\n" || ce.Guest != "pair.t.server" || ce.Cmd != "fail now" {
		t.Errorf("error lacks detail: %+v", ce)
	}
	if want := "pair.t.server: fail now: exit status 3: it broke"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestStdinAndUpload(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	tr := dial(t, s, "")
	res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"cat"}, Stdin: strings.NewReader("hello")})
	if err != nil || string(res.Stdout) != "cat|hello" {
		t.Fatalf("stdin: %q %v", res.Stdout, err)
	}
	if err := tr.Upload(context.Background(), "/tmp/a file", strings.NewReader("data")); err != nil {
		t.Fatal(err)
	}
	cmds := s.Commands()
	if want := `sh -c 'cat > "$1"' sh '/tmp/a file'`; cmds[len(cmds)-1] != want {
		t.Errorf("upload ran %q, want %q", cmds[len(cmds)-1], want)
	}
}

func TestCancelEndsRemoteCommand(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	tr := dial(t, s, "")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	never := make(chan struct{})
	defer close(never)
	_, err := tr.Run(ctx, guest.Cmd{Argv: []string{"sleep", "3600"}, Stdin: blockingReader{never}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(s.Signals()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sig := s.Signals(); len(sig) != 1 || sig[0] != "KILL" {
		t.Errorf("signals sent: %v, want [KILL]", sig)
	}
	// The connection still serves other commands.
	if _, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"true"}}); err != nil {
		t.Errorf("after cancel: %v", err)
	}
}

// blockingReader is stdin that ends only when its channel is closed.
type blockingReader struct{ end chan struct{} }

func (b blockingReader) Read([]byte) (int, error) {
	<-b.end
	return 0, io.EOF
}

func TestConcurrentRuns(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	tr := dial(t, s, "")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			word := strings.Repeat("x", i+1)
			res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"echo", word}})
			if err == nil && string(res.Stdout) != "echo "+word {
				err = errors.New("crossed output: " + string(res.Stdout))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestHostKeys(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	other := sshtest.NewServer(t, echo)
	tests := []struct {
		name    string
		known   string
		wantErr string
	}{
		{"trust on first use", "", ""},
		{"pinned key matches", s.HostKey(), ""},
		{"changed key refused", other.HostKey(), "host key changed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(s, tc.known)
			cfg.Retry = 5 * time.Second // a changed key must not be retried
			start := time.Now()
			tr, err := labssh.Dial(context.Background(), "pair.t.server", cfg)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				if tr.HostKey() != s.HostKey() {
					t.Errorf("HostKey() = %q, want %q", tr.HostKey(), s.HostKey())
				}
				return
			}
			var hk *labssh.HostKeyChangedError
			if !errors.As(err, &hk) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
			for _, want := range []string{fp(t, other.HostKey()), fp(t, s.HostKey()), "lab destroy"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message lacks %q: %v", want, err)
				}
			}
			if time.Since(start) > time.Second {
				t.Errorf("refusal took %v: retried?", time.Since(start))
			}
		})
	}
}

func fp(t *testing.T, line string) string {
	k, err := labssh.ParseHostKey(line)
	if err != nil {
		t.Fatal(err)
	}
	return xssh.FingerprintSHA256(k)
}

func TestAuthFailureFailsFast(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	other := sshtest.NewServer(t, echo)
	cfg := config(s, "")
	cfg.PrivateKeyFile = other.ClientKeyFile() // a key s does not accept
	cfg.Retry = 10 * time.Second
	start := time.Now()
	_, err := labssh.Dial(context.Background(), "pair.t.server", cfg)
	var ae *labssh.AuthError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "authentication as root failed") {
		t.Fatalf("got %v, want an AuthError", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("auth failure took %v: retried?", d)
	}
}

func TestRetryUntilServerStarts(t *testing.T) {
	port := sshtest.FreePort(t)
	client := sshtest.NewKey(t)
	keyFile := sshtest.WriteKey(t, t.TempDir(), "id", client)
	go func() {
		time.Sleep(700 * time.Millisecond)
		sshtest.Start(t, echo, sshtest.Options{Addr: sshtest.LoopbackAddr(port), ClientKey: client})
	}()
	start := time.Now()
	tr, err := labssh.Dial(context.Background(), "late", labssh.Config{Host: "127.0.0.1", Port: port, PrivateKeyFile: keyFile,
		Retry: 10 * time.Second, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Errorf("connected after %v, before the server started", d)
	}
	t.Logf("connected %v after the first attempt", time.Since(start).Round(time.Millisecond))
}

// While the connection is refused Dial retries at a short fixed interval:
// a server that starts 1.5 s late is reached within about 0.1 s of it
// (a doubling backoff from 0.2 s would next try at 3 s).
func TestRetryRefusedAtFixedInterval(t *testing.T) {
	port := sshtest.FreePort(t)
	client := sshtest.NewKey(t)
	keyFile := sshtest.WriteKey(t, t.TempDir(), "id", client)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		sshtest.Start(t, echo, sshtest.Options{Addr: sshtest.LoopbackAddr(port), ClientKey: client})
	}()
	start := time.Now()
	tr, err := labssh.Dial(context.Background(), "late", labssh.Config{Host: "127.0.0.1", Port: port, PrivateKeyFile: keyFile,
		Retry: 10 * time.Second, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if d := time.Since(start); d > 2200*time.Millisecond {
		t.Errorf("connected %v after the first attempt, want within about 0.1 s of the server's start at 1.5 s", d)
	}
}

// With ConnectPoll the refusals before sshd listens are polled through
// (guest/ssh's pollConnect), and the login goes through on the first
// connection that is accepted.
func TestConnectPollReachesLateServer(t *testing.T) {
	port := sshtest.FreePort(t)
	client := sshtest.NewKey(t)
	keyFile := sshtest.WriteKey(t, t.TempDir(), "id", client)
	go func() {
		time.Sleep(300 * time.Millisecond)
		sshtest.Start(t, echo, sshtest.Options{Addr: sshtest.LoopbackAddr(port), ClientKey: client})
	}()
	tr, err := labssh.Dial(context.Background(), "late", labssh.Config{Host: "127.0.0.1", Port: port, PrivateKeyFile: keyFile,
		Retry: 10 * time.Second, DialTimeout: time.Second, ConnectPoll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"hello"}}); err != nil || !strings.Contains(string(res.Stdout), "hello") {
		t.Errorf("run over the polled connection: %q, %v", res.Stdout, err)
	}
}

func TestRetryGivesUp(t *testing.T) {
	port := sshtest.FreePort(t)
	start := time.Now()
	_, err := labssh.Dial(context.Background(), "never", labssh.Config{Host: "127.0.0.1", Port: port,
		Signer: sshtest.NewServer(t, echo).ClientSigner(), Retry: 700 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "gave up after") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d < 700*time.Millisecond || d > 3*time.Second {
		t.Errorf("gave up after %v, want about 0.7 s", d)
	}
}

func TestDroppedConnection(t *testing.T) {
	s := sshtest.NewServer(t, echo)
	tr := dial(t, s, "")
	s.DropAfter(1)
	if _, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"one"}}); err != nil {
		t.Fatal(err)
	}
	// A named script (guest/linux.ReadCounters): the error names it, and
	// does not print the script.
	_, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"sh", "-c", "echo '#snmp'\ncat /proc/net/snmp"}, Name: "read counters of eth1"})
	var ce *guest.CommandError
	if !errors.As(err, &ce) || ce.Err == nil {
		t.Fatalf("got %v, want a CommandError saying the connection dropped", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "read counters of eth1") || strings.Contains(msg, "snmp") {
		t.Errorf("got %q, want the command's name instead of its script", msg)
	}
	t.Logf("dropped: %v", err)
}

func TestScript(t *testing.T) {
	script := sshtest.NewScript(
		sshtest.Rule{Match: `^sysctl -n kern\.osrelease$`, Stdout: "14.2-RELEASE\n"},
		sshtest.Rule{Match: `^ifconfig vmx0$`, Stdout: "mtu 1500\n", Times: 1},
		sshtest.Rule{Match: `^ifconfig vmx0$`, Stdout: "mtu 9000\n"},
		sshtest.Rule{Match: `^ifconfig vmx0 mtu`, Exit: 0},
	)
	s := sshtest.NewServer(t, script.Handle)
	tr := dial(t, s, "")
	var got []string
	for _, argv := range [][]string{{"sysctl", "-n", "kern.osrelease"}, {"ifconfig", "vmx0"}, {"ifconfig", "vmx0", "mtu", "9000"}, {"ifconfig", "vmx0"}} {
		res, err := tr.Run(context.Background(), guest.Cmd{Argv: argv})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimSpace(string(res.Stdout)))
	}
	if want := "14.2-RELEASE,mtu 1500,,mtu 9000"; strings.Join(got, ",") != want {
		t.Errorf("replies %q, want %q", strings.Join(got, ","), want)
	}
	_, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"bhyvectl", "--vm=x"}})
	var ce *guest.CommandError
	if !errors.As(err, &ce) || ce.ExitCode != 127 || !strings.Contains(ce.Stderr, "no rule matches") {
		t.Errorf("unmatched: %v", err)
	}
	if u := script.Unmatched(); len(u) != 1 || u[0] != "bhyvectl --vm=x" {
		t.Errorf("Unmatched() = %q", u)
	}
}
