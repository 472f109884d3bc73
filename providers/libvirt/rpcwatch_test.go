package libvirt

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// packet builds one libvirt RPC packet: length, virNetMessageHeader
// (program, version, procedure, type, serial, status), payload.
func packet(proc, typ uint32, serial int32, payload int) []byte {
	b := make([]byte, packetHeaderLen+payload)
	binary.BigEndian.PutUint32(b[0:], uint32(len(b)))
	binary.BigEndian.PutUint32(b[4:], remoteProgram)
	binary.BigEndian.PutUint32(b[8:], 1)
	binary.BigEndian.PutUint32(b[12:], proc)
	binary.BigEndian.PutUint32(b[16:], typ)
	binary.BigEndian.PutUint32(b[20:], uint32(serial))
	return b
}

// The scanner finds every header whatever pieces the stream comes in.
func TestPacketScannerSplits(t *testing.T) {
	var stream []byte
	stream = append(stream, packet(1, msgCall, 1, 0)...)
	stream = append(stream, packet(66, msgReply, 1, 300)...)
	stream = append(stream, packet(209, msgStream, 7, 5000)...)
	want := []packetHeader{{remoteProgram, 1, msgCall, 1}, {remoteProgram, 66, msgReply, 1}, {remoteProgram, 209, msgStream, 7}}
	for _, size := range []int{1, 3, 27, 28, 29, 100, len(stream)} {
		var s packetScanner
		var got []packetHeader
		for b := stream; len(b) > 0; {
			n := min(size, len(b))
			s.feed(b[:n], func(h packetHeader) { got = append(got, h) })
			b = b[n:]
		}
		if len(got) != len(want) {
			t.Fatalf("pieces of %d: %d headers %v, want %v", size, len(got), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("pieces of %d: header %d = %+v, want %+v", size, i, got[i], want[i])
			}
		}
	}
}

// The watch's bookkeeping: a reply ends a call, a stream packet of its
// serial restarts its clock, a slow procedure gets more time.
func TestRPCWatchDeadlines(t *testing.T) {
	w := &rpcWatch{uri: "qemu:///system", deadline: time.Second, pending: map[int32]pendingCall{}}
	t0 := time.Now()
	w.pending[1] = pendingCall{proc: 209, program: remoteProgram, lastSeen: t0}                                        // a download
	w.pending[2] = pendingCall{proc: 125, program: remoteProgram, lastSeen: t0}                                        // a full clone: slow
	w.in.feed(packet(209, msgStream, 1, 10), func(h packetHeader) { w.touch(h.Serial, t0.Add(900*time.Millisecond)) }) // data came
	if w.check(t0.Add(1500 * time.Millisecond)) {
		t.Fatalf("a download that moves and a slow call stalled after 1.5s: %v", w.stalled)
	}
	if !w.check(t0.Add(2 * time.Second)) {
		t.Fatal("a download silent for 1.1s (deadline 1s) did not stall")
	}
	var st *StalledError
	if !errors.As(w.stalled, &st) || st.URI != "qemu:///system" || st.Call != "remote procedure 209" {
		t.Fatalf("stalled = %#v", w.stalled)
	}
	delete(w.pending, 1)
	w.stalled = nil
	if w.check(t0.Add(4 * time.Second)) {
		t.Fatal("StorageVolCreateXMLFrom stalled within 5× the deadline")
	}
	if !w.check(t0.Add(6*time.Second)) || !strings.Contains(w.stalled.Error(), "StorageVolCreateXMLFrom") {
		t.Fatalf("a full clone silent for 6s did not stall: %v", w.stalled)
	}
}

// silentDaemon is a UNIX socket that accepts connections and never answers:
// a libvirtd that is stopped (SIGSTOP) or wedged looks like this to a
// client, since the kernel completes the accept.
func silentDaemon(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "libvirt-sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never read or answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return path
}

// Against a daemon that never answers, every provider call fails within
// call_timeout, naming the URI and the call, and later calls of the same
// session fail at once.
func TestSilentDaemonFailsWithinCallTimeout(t *testing.T) {
	sock := silentDaemon(t)
	uri := "qemu+unix:///system?socket=" + sock
	link := machine.Instance{Address: "pair.p.link", Provider: TypeName, Kind: "link", Name: "x-p", Attrs: map[string]string{attrNetwork: "lab-x-p", attrOwned: "true"}}
	server := machine.Instance{Address: "pair.p.server", Provider: TypeName, Kind: "machine", Name: "x-p-s"}
	m := machine.Machine{Address: "pair.p.server", LabID: "x", Name: "x-p-s", Template: machine.Template{Name: "debian", Source: "base.qcow2", OS: "linux"}, Link: link}
	calls := []struct {
		name string
		call func(context.Context, *Provider) error
	}{
		{"List", func(ctx context.Context, p *Provider) error {
			_, err := p.List(ctx, machine.Owner{Lab: "x"})
			return err
		}},
		{"Link", func(ctx context.Context, p *Provider) error {
			_, err := p.Link(ctx, providers.LinkSpec{Address: "pair.p.link", LabID: "x", Name: "x-p"})
			return err
		}},
		{"Create", func(ctx context.Context, p *Provider) error { _, err := p.Create(ctx, m); return err }},
		{"Read", func(ctx context.Context, p *Provider) error { _, _, err := p.Read(ctx, server); return err }},
		{"Delete", func(ctx context.Context, p *Provider) error { return p.Delete(ctx, server) }},
		{"TemplateID", func(ctx context.Context, p *Provider) error { _, err := p.TemplateID(ctx, m); return err }},
	}
	const callTimeout = 500 * time.Millisecond
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			p := New()
			body := hclBody(t, `uri = "`+uri+`"
accel = "tcg"
call_timeout = "500ms"
`) // tcg: the KVM probe (accel_test.go) is not what is tested
			if d := p.Configure(context.Background(), body); d.HasErrors() {
				t.Fatal(d)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			errc := make(chan error, 1)
			start := time.Now()
			go func() { errc <- c.call(ctx, p) }()
			var err error
			select {
			case err = <-errc:
			case <-time.After(20 * callTimeout):
				t.Fatalf("%s still waiting after %v against a silent daemon (call_timeout %v)", c.name, 20*callTimeout, callTimeout)
			}
			took := time.Since(start)
			var st *StalledError
			if !errors.As(err, &st) || !strings.Contains(err.Error(), uri) {
				t.Fatalf("%s: error %v, want one naming %s and the unanswered call", c.name, err, uri)
			}
			t.Logf("%s failed after %v: %v", c.name, took.Round(time.Millisecond), err)
			// The session knows the daemon is gone: the next call fails at
			// once, and Close does not wait for an answer either.
			again := time.Now()
			if _, err := p.List(ctx, machine.Owner{Lab: "x"}); !errors.As(err, &st) {
				t.Errorf("second call: %v, want the stall again", err)
			}
			if err := p.Close(ctx); err != nil {
				t.Errorf("Close: %v", err)
			}
			if d := time.Since(again); d > callTimeout {
				t.Errorf("a second call and Close took %v after the daemon was known silent", d)
			}
		})
	}
}

func testMachine() machine.Machine {
	return machine.Machine{Address: "pair.p.server", LabID: "x", Name: "x-p-s", Role: "server",
		Template: machine.Template{Name: "debian", Source: "base.qcow2", OS: "linux"}}
}

func hclBody(t *testing.T, src string) *hclsyntax.Body {
	t.Helper()
	f, d := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	return f.Body.(*hclsyntax.Body)
}
