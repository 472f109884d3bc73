// Package local is the zero-setup back end: a pair is two Linux network
// namespaces joined by a veth pair, on the machine running lab. It needs
// root and iproute2 (5.0 or later, for `ip netns attach`). It only ever
// touches namespaces and interfaces it created itself: namespaces are
// named "lab-<machine name>" and carry their owner's tag
// (machine.Owner.Tag) as their loopback's alias, and every veth end
// carries it as its own alias (owner.go).
package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/providers"
)

// TypeName is the provider type in specs: provider "local" "name" {}.
const TypeName = "local"

func init() { providers.Register(TypeName, func() providers.Provider { return New() }) }

// Provider creates namespaces and veth pairs on this machine.
type Provider struct {
	// CPUs is how many CPUs the machine has, for pinning (defaults to
	// runtime.NumCPU at Configure).
	CPUs int
	// exec runs a host command; replaced in tests.
	exec func(ctx context.Context, argv ...string) ([]byte, error)

	// Bridge and Address, when set, put the block's one machine on an
	// existing Linux bridge of this host at Address (a CIDR), as one end
	// of a cross pair (bridge.go).
	Bridge, Address string

	idOnce sync.Once
	id     string // TemplateID, computed once
}

var _ providers.Provider = (*Provider)(nil)

// New returns a local provider that runs iproute2 on this machine.
func New() *Provider { return &Provider{CPUs: numCPU(), exec: hostExec} }

type config struct {
	// CPUs caps the CPUs used for pinning (0: all of this machine's).
	CPUs int `hcl:"cpus,optional"`
	// Bridge and Address: see Provider.
	Bridge  string   `hcl:"bridge,optional"`
	Address string   `hcl:"address,optional"`
	Remain  hcl.Body `hcl:",remain"`
}

// Configure decodes the provider block. The local back end needs root.
func (p *Provider) Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics {
	var c config
	diags := gohcl.DecodeBody(body, nil, &c)
	if diags.HasErrors() {
		return diags
	}
	cd := providers.NewConfigDiags(body)
	cd.Append(diags)
	cd.Unsupported(c.Remain, "local", "cpus, bridge, address")
	checkBridge(cd, c.Bridge, c.Address)
	p.Bridge, p.Address = c.Bridge, c.Address
	// A count is at least 1: cpus = -5 used to mean "all" without a word.
	if attrs, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "cpus"}}}); attrs != nil {
		if a := attrs.Attributes["cpus"]; a != nil && c.CPUs < 1 {
			cd.Errorf("cpus", "Invalid cpus", "cpus is the number of CPUs to pin benchmarks to, at least 1; got %d.", c.CPUs)
		}
	}
	if c.CPUs > 0 && c.CPUs < p.CPUs {
		p.CPUs = c.CPUs
	}
	return cd.Diags()
}

// hostExec runs argv in the host namespace and returns stdout; a failure
// carries the command and its stderr.
func hostExec(ctx context.Context, argv ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		ce := &guest.CommandError{Guest: "local host", Cmd: guest.ShellJoin(argv), Stderr: stderr.String()}
		var ee *exec.ExitError
		if ctx.Err() != nil {
			ce.Err = fmt.Errorf("interrupted: %w", ctx.Err())
		} else if errors.As(err, &ee) {
			ce.ExitCode = ee.ExitCode()
			ce.Signal = guest.SignalOf(ee.Sys())
		} else {
			ce.Err = err
		}
		return stdout.Bytes(), ce
	}
	return stdout.Bytes(), nil
}

// notFound reports whether a failed iproute2 command said the object does
// not exist, which Delete treats as success.
func notFound(err error) bool {
	var ce *guest.CommandError
	if !errors.As(err, &ce) {
		return false
	}
	s := ce.Stderr
	// "RTNETLINK answers: No such device" / "Cannot send link get
	// request": the device went between ip's name lookup and its request
	// (a veth whose peer's delete took it along).
	return strings.Contains(s, "Cannot find device") || strings.Contains(s, "No such file") || strings.Contains(s, "No such device") ||
		strings.Contains(s, "does not exist") || strings.Contains(s, "Invalid \"netns\" value")
}

func numCPU() int {
	n := 0
	if b, err := os.ReadFile("/sys/fs/cgroup/cpuset.cpus.effective"); err == nil {
		if cpus, err := parseCPUList(strings.TrimSpace(string(b))); err == nil {
			n = len(cpus)
		}
	}
	if n == 0 {
		n = runtimeNumCPU()
	}
	return n
}
