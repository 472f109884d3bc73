package local

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"syscall"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/machine"
)

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
	// Each tool declares the command that prints its version
	// (bench.Program.Version).
	for _, argv := range bench.VersionCommands() {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		out, _ := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
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
