package local

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"syscall"

	"github.com/lab-bench/lab/machine"
)

// versionFlags are the benchmark tools whose versions make up a local
// machine's template identity, with the flag that prints each one's.
var versionFlags = []struct{ tool, flag string }{{"iperf3", "--version"}, {"iperf", "-v"}, {"netperf", "-V"}}

// TemplateID is this host's identity as a template: every namespace runs
// the host's kernel and the host's tools, so it is the kernel release and
// the first line each installed benchmark tool prints of its version
// ("linux 6.1.0-28-amd64; iperf3 3.12 (cJSON 1.7.15); iperf version 2.1.8").
// It is computed once per provider.
func (p *Provider) TemplateID(ctx context.Context, _ machine.Machine) (string, error) {
	p.idOnce.Do(func() { p.id = hostIdentity(ctx) })
	return p.id, nil
}

func hostIdentity(ctx context.Context) string {
	parts := []string{"linux " + kernelRelease()}
	for _, v := range versionFlags {
		if _, err := exec.LookPath(v.tool); err != nil {
			continue
		}
		out, _ := exec.CommandContext(ctx, v.tool, v.flag).CombinedOutput()
		line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if line != "" {
			parts = append(parts, strings.TrimSpace(line))
		}
	}
	return strings.Join(parts, "; ")
}

func kernelRelease() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return "unknown"
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(bytes.TrimSpace(b))
}
