package libvirt

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"time"
)

// go-libvirt's calls take no context and its connection has no deadline: a
// libvirtd that accepts and never answers (stopped, wedged on a dead NFS
// pool, a remote host gone quiet) would hang every call for ever. rpcWatch
// sits between go-libvirt and the socket, follows the RPC packets both
// ways and closes the connection when a call has waited longer than its
// deadline without a packet of its own: go-libvirt then fails every call in
// flight (ErrInterrupted) and lab reports which call, on which URI, went
// unanswered.
//
// The framing is libvirt's (src/rpc/virnetprotocol.x, struct
// virNetMessageHeader, and src/rpc/virnetmessage.c): every packet is a
// 4-byte big-endian length that counts itself, then a 24-byte header of
// program, version, procedure, type, serial and status, then the payload.
// Types (enum virNetMessageType): 0 CALL, 1 REPLY, 2 MESSAGE (an event),
// 3 STREAM, 4 CALL_WITH_FDS, 5 REPLY_WITH_FDS, 6 STREAM_HOLE.

const (
	msgCall         = 0
	msgReply        = 1
	msgStream       = 3
	msgCallWithFDs  = 4
	msgReplyWithFDs = 5
	msgStreamHole   = 6
)

// packetHeaderLen is the length word plus virNetMessageHeader.
const packetHeaderLen = 4 + 24

// procNames are the remote procedures (src/remote/remote_protocol.x, enum
// remote_procedure) an error may name: the connection's handshake and the
// slow ones.
var procNames = map[uint32]string{
	1:   "ConnectOpen",
	2:   "ConnectClose",
	9:   "DomainCreate",
	11:  "DomainDefineXML",
	66:  "AuthList",
	125: "StorageVolCreateXMLFrom",
	273: "ConnectListAllDomains",
	350: "DomainDefineXMLFlags",
}

// slowProcs may legitimately work for long without a packet: a full clone
// copies a whole image, a definition or a start can make libvirt probe
// QEMU again. They get slowCallFactor times the deadline.
var slowProcs = map[uint32]bool{9: true, 11: true, 125: true, 350: true}

const slowCallFactor = 5

// remoteProgram is REMOTE_PROGRAM (0x20008086): the procedures above are
// its numbers.
const remoteProgram = 0x20008086

// packetHeader is the part of virNetMessageHeader rpcWatch needs.
type packetHeader struct {
	Program, Procedure, Type uint32
	Serial                   int32
}

// packetScanner finds packet headers in a byte stream fed in pieces of any
// size.
type packetScanner struct {
	head [packetHeaderLen]byte
	have int    // bytes of head filled
	skip uint32 // payload bytes of the current packet still to pass over
}

// feed calls fn for every complete header in b.
func (s *packetScanner) feed(b []byte, fn func(packetHeader)) {
	for len(b) > 0 {
		if s.skip > 0 {
			n := uint32(len(b))
			if n > s.skip {
				n = s.skip
			}
			s.skip -= n
			b = b[n:]
			continue
		}
		n := copy(s.head[s.have:], b)
		s.have += n
		b = b[n:]
		if s.have < packetHeaderLen {
			return
		}
		s.have = 0
		length := binary.BigEndian.Uint32(s.head[0:4])
		if length >= packetHeaderLen {
			s.skip = length - packetHeaderLen
		}
		fn(packetHeader{
			Program:   binary.BigEndian.Uint32(s.head[4:8]),
			Procedure: binary.BigEndian.Uint32(s.head[12:16]),
			Type:      binary.BigEndian.Uint32(s.head[16:20]),
			Serial:    int32(binary.BigEndian.Uint32(s.head[20:24])),
		})
	}
}

// pendingCall is a call sent and not yet answered.
type pendingCall struct {
	proc     uint32
	program  uint32
	lastSeen time.Time // sent, or the last stream packet of its serial
}

// rpcWatch is the watched connection.
type rpcWatch struct {
	net.Conn
	uri      string
	deadline time.Duration

	mu      sync.Mutex
	in, out packetScanner
	pending map[int32]pendingCall
	stalled error // set when the watch closed the connection
	done    chan struct{}
	once    sync.Once
}

// watchRPC wraps conn; deadline is the longest a call may wait without a
// packet of its own.
func watchRPC(conn net.Conn, uri string, deadline time.Duration) *rpcWatch {
	w := &rpcWatch{Conn: conn, uri: uri, deadline: deadline, pending: map[int32]pendingCall{}, done: make(chan struct{})}
	go w.run()
	return w
}

func (w *rpcWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	now := time.Now()
	w.out.feed(b, func(h packetHeader) {
		switch h.Type {
		case msgCall, msgCallWithFDs:
			w.pending[h.Serial] = pendingCall{proc: h.Procedure, program: h.Program, lastSeen: now}
		case msgStream, msgStreamHole: // an upload moving on
			w.touch(h.Serial, now)
		}
	})
	w.mu.Unlock()
	return w.Conn.Write(b)
}

func (w *rpcWatch) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if n > 0 {
		w.mu.Lock()
		now := time.Now()
		w.in.feed(b[:n], func(h packetHeader) {
			switch h.Type {
			case msgReply, msgReplyWithFDs:
				delete(w.pending, h.Serial)
			case msgStream, msgStreamHole: // a download moving on
				w.touch(h.Serial, now)
			}
		})
		w.mu.Unlock()
	}
	if err != nil {
		if st := w.stalledErr(); st != nil {
			return n, st
		}
	}
	return n, err
}

func (w *rpcWatch) touch(serial int32, now time.Time) {
	if c, ok := w.pending[serial]; ok {
		c.lastSeen = now
		w.pending[serial] = c
	}
}

// Close stops the watch and closes the connection.
func (w *rpcWatch) Close() error {
	w.once.Do(func() { close(w.done) })
	return w.Conn.Close()
}

// stalledErr is why the watch closed the connection; nil while it has not.
func (w *rpcWatch) stalledErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stalled
}

func (w *rpcWatch) run() {
	tick := w.deadline / 10
	if tick < 20*time.Millisecond {
		tick = 20 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case now := <-t.C:
			if w.check(now) {
				_ = w.Close()
				return
			}
		}
	}
}

// check marks the connection stalled when a call has waited past its
// deadline; it reports whether it did.
func (w *rpcWatch) check(now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.pending {
		limit := w.deadline
		name := fmt.Sprintf("procedure %d of program %#x", c.proc, c.program)
		if c.program == remoteProgram {
			name = fmt.Sprintf("remote procedure %d", c.proc)
			if n, ok := procNames[c.proc]; ok {
				name = n
			}
			if slowProcs[c.proc] {
				limit *= slowCallFactor
			}
		}
		if waited := now.Sub(c.lastSeen); waited > limit {
			w.stalled = &StalledError{URI: w.uri, Call: name, Waited: waited.Round(time.Millisecond), Deadline: limit}
			return true
		}
	}
	return false
}

// StalledError is a libvirt call that got no answer within its deadline:
// the daemon is stopped, wedged or unreachable. lab closed the connection.
type StalledError struct {
	URI      string
	Call     string
	Waited   time.Duration
	Deadline time.Duration
}

func (e *StalledError) Error() string {
	return fmt.Sprintf("libvirtd at %s did not answer %s within %v (call_timeout): the daemon is stopped, hung or unreachable; lab closed the connection",
		e.URI, e.Call, e.Deadline)
}
