package linux

import (
	"context"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/guesttest"
)

// sharedStat is a recording transport that also serves /proc/stat in
// process (guest.SharedFileReader), as the netns transport does.
type sharedStat struct {
	guesttest.Recorder
	stat string
}

func (s *sharedStat) ReadShared(_ context.Context, path string) ([]byte, bool, error) {
	if path != "/proc/stat" {
		return nil, false, nil
	}
	return []byte(s.stat), true, nil
}

// TestReadCPUStatReadsASharedFileInProcess: on a transport that sees the
// host's /proc/stat, CPU times are read without a command (issue 32 §6: a
// run samples both ends before and after, four commands a run); on any
// other, with `cat /proc/stat` as before.
func TestReadCPUStatReadsASharedFileInProcess(t *testing.T) {
	// A /proc/stat excerpt (Linux fs/proc/stat.c: "cpu%d" then user nice
	// system idle iowait irq softirq steal guest guest_nice).
	const stat = "cpu  10 0 5 100 0 0 0 0 0 0\ncpu0 4 0 2 50 0 0 0 0 0 0\ncpu1 6 0 3 50 0 0 0 0 0 0\n"
	cases := []struct {
		name    string
		shared  bool
		wantLog string
	}{
		{name: "shared", shared: true, wantLog: ""},
		{name: "remote", shared: false, wantLog: "$ cat /proc/stat\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &sharedStat{Recorder: guesttest.Recorder{Guest: "g", Replies: map[string]guesttest.Reply{"cat /proc/stat": {Out: stat}}}, stat: stat}
			rec := &s.Recorder
			var tr guest.Transport = rec
			if tc.shared {
				tr = s
			}
			m, err := ReadCPUStat(context.Background(), tr)
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != 2 || m[1].User != 6 {
				t.Errorf("times %+v", m)
			}
			if got := rec.Log.String(); got != tc.wantLog {
				t.Errorf("commands run:\n%s\nwant:\n%s", got, tc.wantLog)
			}
		})
	}
}
