package freebsd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPipePLR reads lab's loss pipe from `ipfw pipe list` as FreeBSD 14
// prints it and as FreeBSD 8 did.
//
// ipfw-pipe-list-14.txt: sbin/ipfw/dummynet.c list_pipes prints the link
// ("%05d: %s %4d ms burst %s", bandwidth "unlimited     " when 0) and
// flushes it; the pipe's FIFO flowset, number 29+2*DN_MAX_ID (=131101,
// ipfw_config_pipe), follows from print_flowset_parms without a prefix
// ("q%05d %s%s %d flows (%d buckets) sched %d weight %d lmax %d pri %d
// %s": "%3d sl." and "plr %f"); the scheduler line (DN_SCH, " sched %d
// type %s flags 0x%x %d buckets %d active") for pipe 29's FIFO, 65565.
// ipfw-pipe-list-8.txt: the pre-9 format, plr on the pipe's own line.
func TestPipePLR(t *testing.T) {
	for _, c := range []struct {
		file string
		line string
	}{
		{"ipfw-pipe-list-14.txt", "00029: unlimited 0 ms burst 0; q131101 50 sl.plr 0.010000 0 flows (1 buckets) sched 65565 weight 0 lmax 0 pri 0 droptail"},
		{"ipfw-pipe-list-8.txt", "00029: unlimited 0 ms 50 sl.plr 0.010000 1 queues (1 buckets) droptail"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := pipeLine(string(b)); got != c.line {
			t.Errorf("%s: pipeLine = %q\nwant %q", c.file, got, c.line)
		}
		if plr, ok := PipePLR(string(b)); !ok || plr != 0.01 {
			t.Errorf("%s: PipePLR = %v, %v", c.file, plr, ok)
		}
	}
	if _, ok := PipePLR("00030: unlimited         0 ms burst 0\nq131102  50 sl.plr 0.020000 0 flows (1 buckets) sched 65566 weight 0 lmax 0 pri 0 droptail\n"); ok {
		t.Error("another pipe's loss read as lab's")
	}
}

// TestVtnetHint: vtnet turns LRO off with receive checksums
// (vtnet_ioctl_ifcap), the only offload it offers that a request can
// leave unchanged; no loader tunable is suggested for anything.
func TestVtnetHint(t *testing.T) {
	noRx := Ifconfig{Options: map[string]bool{"TXCSUM": true}}
	withRx := Ifconfig{Options: map[string]bool{"RXCSUM": true}}
	for _, c := range []struct {
		iface, name string
		want        bool
		ifc         Ifconfig
		hint        string
	}{
		{"vtnet0", "lro", true, noRx, "; vtnet keeps lro off while rxcsum is off"},
		{"vtnet0", "lro", true, withRx, ""},
		{"vtnet0", "tso", false, withRx, ""},
		{"vmx0", "lro", true, noRx, ""},
	} {
		if got := vtnetHint(c.iface, c.name, c.want, c.ifc); got != c.hint {
			t.Errorf("vtnetHint(%s, %s, %v) = %q, want %q", c.iface, c.name, c.want, got, c.hint)
		}
	}
}

// PipePLR is the loss rate (0..1) of LossPipe in `ipfw pipe list`
// output, read from "plr 0.010000" (print_flowset_parms prints the queue
// size and "plr %f" with no blank between, "50 sl.plr 0.010000"); ok is
// false when the pipe is absent or drops nothing.
func PipePLR(out string) (plr float64, ok bool) {
	f := strings.Fields(pipeLine(out))
	for i := 0; i+1 < len(f); i++ {
		if strings.HasSuffix(f[i], "plr") {
			if x, err := strconv.ParseFloat(strings.TrimSuffix(f[i+1], ";"), 64); err == nil {
				return x, true
			}
		}
	}
	return 0, false
}
