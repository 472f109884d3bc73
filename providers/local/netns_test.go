package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

// TestAddNamespaceTagsBeforeNaming makes namespaces concurrently with
// addNamespace: each is tagged when it first has its name, and afterwards
// no thread of this process is left in any of them (lab must never find
// itself among a namespace's processes and kill itself, nor run later
// commands in a machine's namespace).
func TestAddNamespaceTagsBeforeNaming(t *testing.T) {
	needRoot(t)
	home, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	p := New()
	o := machine.Owner{Lab: fmt.Sprintf("n%d", os.Getpid()), Workspace: "0123abcd"}
	var names []string
	for i := 0; i < 8; i++ {
		names = append(names, Namespace(fmt.Sprintf("%s-%d", o.Lab, i)))
	}
	t.Cleanup(func() {
		for _, ns := range names {
			_ = exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, ns := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.addNamespace(context.Background(), ns, o.Tag(fmt.Sprintf("pair.p%d.server", i)))
		}()
	}
	wg.Wait()
	for i, ns := range names {
		if errs[i] != nil {
			t.Fatalf("addNamespace %s: %v", ns, errs[i])
		}
		tag, _, err := p.ifAlias(context.Background(), ns, "lo")
		if err != nil || tag != o.Tag(fmt.Sprintf("pair.p%d.server", i)) {
			t.Errorf("%s: loopback alias %q (%v), want its tag", ns, tag, err)
		}
		out, err := exec.Command("ip", "netns", "pids", ns).Output()
		if err != nil || strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", fmt.Sprintf(" %d ", os.Getpid())) {
			t.Errorf("%s: this process is among its processes (%q, %v)", ns, out, err)
		}
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/ns/net")
	for _, task := range tasks {
		if got, err := os.Readlink(task); err == nil && got != home {
			t.Errorf("%s is %s, not this process's namespace %s", task, got, home)
		}
	}
	if got, _ := os.Readlink("/proc/self/ns/net"); got != home {
		t.Errorf("this process's namespace changed: %s, was %s", got, home)
	}
}

// TestNotFound: what iproute2 says of a device that is gone — also when it
// went between the name lookup and the request — is not an error to a
// delete; anything else is.
func TestNotFound(t *testing.T) {
	for stderr, want := range map[string]bool{
		`Device "lbx" does not exist.`: true,
		"RTNETLINK answers: No such device\nCannot send link get request: No such device": true,
		"Cannot find device \"lbx\"":                 true,
		"RTNETLINK answers: Operation not permitted": false,
	} {
		err := &guest.CommandError{Guest: "local host", Cmd: "ip link show dev lbx", Stderr: stderr}
		if got := notFound(err); got != want {
			t.Errorf("%q: not found %v, want %v", stderr, got, want)
		}
	}
}
