package archive

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/pgcluster"
)

// holdEnv, when set, makes TestHoldFootprint (run in a child process)
// take the footprint lock at that URL, say "held" and wait to be killed.
const holdEnv = "LAB_TEST_HOLD_FOOTPRINT"

func TestHoldFootprint(t *testing.T) {
	url := os.Getenv(holdEnv)
	if url == "" {
		t.Skip("helper process of TestFootprintLockSerialisesRunners")
	}
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LockFootprint(context.Background(), []string{"host h1", "esxi host-21"},
		Holder{Runner: "runner-a", Lab: "lab-a", PID: os.Getpid(), Since: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held\n")
	select {}
}

// TestFootprintLockSerialisesRunners: a second runner waits for a
// footprint another process holds, is told who holds it, and proceeds
// once that process is killed mid-run (its session, and lock, gone).
// A footprint that does not meet it is free meanwhile.
func TestFootprintLockSerialisesRunners(t *testing.T) {
	c := pgcluster.Start(t)
	ctx := context.Background()
	s := openStore(t, c.URL)
	child := exec.Command(os.Args[0], "-test.run=^TestHoldFootprint$", "-test.v")
	child.Env = append(os.Environ(), holdEnv+"="+c.URL)
	out, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() && !strings.Contains(lines.Text(), "held") {
	}
	me := Holder{Runner: "runner-b", Lab: "lab-b", PID: os.Getpid(), Since: time.Now()}

	free, err := s.LockFootprint(ctx, []string{"host h2"}, me, nil)
	if err != nil {
		t.Fatalf("a footprint nobody holds: %v", err)
	}
	free()

	var told []Holder
	waiting := func(_ string, h Holder) { told = append(told, h) }
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := s.LockFootprint(short, []string{"esxi host-21"}, me, waiting); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("took a footprint another runner holds: %v", err)
	}
	if len(told) != 1 || told[0].Runner != "runner-a" || told[0].Lab != "lab-a" || told[0].PID != child.Process.Pid {
		t.Fatalf("told %+v; want runner-a, lab-a, pid %d", told, child.Process.Pid)
	}

	child.Process.Kill() // the runner dies mid-run
	child.Wait()
	got, cancel2 := context.WithTimeout(ctx, 60*time.Second)
	defer cancel2()
	release, err := s.LockFootprint(got, []string{"esxi host-21", "host h1"}, me, nil)
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	release()
}
