package bench

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
)

func TestParseCPTimes(t *testing.T) {
	// Two CPUs of a FreeBSD 14 guest, as `sysctl -n kern.cp_times` prints.
	before := "1201 0 3518 207 181234 1388 2 2941 95 181755\n"
	after := "1301 0 4018 307 181434 1388 2 2941 95 182755\n"
	b, err := freebsd.ParseCPTimes(before)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := freebsd.ParseCPTimes(after)
	if len(b) != 2 || b[1].Idle != 181755 || b[0].IRQ != 207 || b[0].System != 3518 {
		t.Fatalf("parsed %+v", b)
	}
	u := Usage(b, a, []int{0})
	// CPU 0: user 100, sys 500, intr 100, idle 200 → busy 700/900.
	if math.Abs(u.Busy-100*700.0/900) > 1e-9 || math.Abs(u.IRQ-100*100.0/900) > 1e-9 {
		t.Errorf("usage %+v", u)
	}
	if u := Usage(b, a, nil); u.Busy <= 0 || u.Busy >= 100*700.0/900 {
		t.Errorf("all CPUs: %+v", u)
	}
	// kern.cp_time (the aggregate) is one CPU's worth.
	if m, err := freebsd.ParseCPTimes("10 0 20 5 65"); err != nil || len(m) != 1 {
		t.Errorf("cp_time: %v %v", m, err)
	}
	for _, bad := range []string{"", "1 2 3", "1 2 3 4 x", "1 2 3 4 5 6"} {
		if _, err := freebsd.ParseCPTimes(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// cpuFake answers /proc/stat or kern.cp_times like a Linux or FreeBSD guest.
type cpuFake struct {
	freebsd bool
	lost    bool
	cmds    []string
}

func (f *cpuFake) Run(_ context.Context, c guest.Cmd) (guest.Result, error) {
	f.cmds = append(f.cmds, c.String())
	switch {
	case f.lost:
		return guest.Result{}, &guest.CommandError{Guest: "g", Cmd: c.String(), ExitCode: -1, Err: io.EOF}
	case c.String() == "cat /proc/stat" && f.freebsd:
		return guest.Result{ExitCode: 1}, &guest.CommandError{Guest: "g", Cmd: c.String(), ExitCode: 1, Stderr: "cat: /proc/stat: No such file or directory\n"}
	case c.String() == "cat /proc/stat":
		return guest.Result{Stdout: []byte("cpu 1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")}, nil
	case c.String() == "sysctl -n kern.cp_times" && f.freebsd:
		return guest.Result{Stdout: []byte("1 0 2 3 4 5 0 6 7 8\n")}, nil
	}
	return guest.Result{ExitCode: 127}, &guest.CommandError{Guest: "g", Cmd: c.String(), ExitCode: 127}
}
func (f *cpuFake) Upload(context.Context, string, io.Reader) error { return nil }
func (f *cpuFake) Name() string                                    { return "g" }
func (f *cpuFake) Close() error                                    { return nil }

func TestReadCPUFallsBackToCPTimes(t *testing.T) {
	linux := &cpuFake{}
	if m, err := ReadCPU(context.Background(), linux); err != nil || len(m) != 1 || strings.Join(linux.cmds, ";") != "cat /proc/stat" {
		t.Errorf("linux: %v %v %v", m, err, linux.cmds)
	}
	bsd := &cpuFake{freebsd: true}
	m, err := ReadCPU(context.Background(), bsd)
	if err != nil || len(m) != 2 || m[1].Idle != 8 || strings.Join(bsd.cmds, ";") != "cat /proc/stat;sysctl -n kern.cp_times" {
		t.Errorf("freebsd: %v %v %v", m, err, bsd.cmds)
	}
	lost := &cpuFake{lost: true}
	if _, err := ReadCPU(context.Background(), lost); err == nil || len(lost.cmds) != 1 {
		t.Errorf("lost connection: %v, commands %v (must not fall back)", err, lost.cmds)
	}
}
