package archive

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/pgcluster"
)

// TestFootprintLockEverything: an unknown footprint (no resources, what a
// back end that cannot prove where a run lands answers) meets every
// footprint across the team, as it does for -runs-at-once: it waits for
// any footprint held, is told who holds one, and while it is held no
// named footprint can be taken. Two named footprints that do not meet
// are held at once.
func TestFootprintLockEverything(t *testing.T) {
	c := pgcluster.Start(t)
	s := openStore(t, c.URL)
	ctx := context.Background()
	a := Holder{Runner: "runner-a", Lab: "lab-a", PID: os.Getpid(), Since: time.Now()}
	b := Holder{Runner: "runner-b", Lab: "lab-b", PID: os.Getpid(), Since: time.Now()}

	esxi, err := s.LockFootprint(ctx, []string{"vsphere host vc.example.com/host-21"}, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	kvm, err := s.LockFootprint(ctx, []string{"libvirt host kvm1.example.net"}, b, nil)
	if err != nil {
		t.Fatalf("a footprint that meets no held one: %v", err)
	}
	kvm()

	var told []Holder
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := s.LockFootprint(short, nil, b, func(_ string, h Holder) { told = append(told, h) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an unknown footprint while a named one is held: %v", err)
	}
	if len(told) != 1 || told[0].Runner != "runner-a" || told[0].Lab != "lab-a" {
		t.Fatalf("told %+v; want runner-a, lab-a", told)
	}
	esxi()

	alone, err := s.LockFootprint(ctx, nil, b, nil)
	if err != nil {
		t.Fatalf("an unknown footprint, nothing held: %v", err)
	}
	told = nil
	short2, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	defer cancel2()
	if _, err := s.LockFootprint(short2, []string{"ssh host SHA256:abc"}, a, func(_ string, h Holder) { told = append(told, h) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a named footprint while an unknown one is held: %v", err)
	}
	if len(told) != 1 || told[0].Runner != "runner-b" {
		t.Fatalf("told %+v; want runner-b", told)
	}
	alone()
	again, err := s.LockFootprint(ctx, []string{"ssh host SHA256:abc"}, a, nil)
	if err != nil {
		t.Fatalf("after the unknown footprint's release: %v", err)
	}
	again()
}
