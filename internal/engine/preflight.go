package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
)

// MissingToolsError is a guest without a program its runs need. It names
// the guest, each program and how to install it.
type MissingToolsError struct {
	Guest   string
	OS      string
	Missing []string
}

func (e *MissingToolsError) Error() string {
	var parts []string
	for _, t := range e.Missing {
		parts = append(parts, t+" ("+installHint(e.OS, t)+")")
	}
	return fmt.Sprintf("%s: not installed: %s — install it in the template (or on the host, for the local back end) and apply again",
		e.Guest, strings.Join(parts, ", "))
}

// installHint says how to install program on osName: a benchmark tool
// names its own package (bench.PackageFor) or says how to get a program
// the OS packages nowhere (bench.UnpackagedHint), the OS's driver knows
// the packages of the programs it runs and how its OS installs one.
func installHint(osName, program string) string {
	tools := guest.For(osName).Tools
	if h, ok := bench.UnpackagedHint(tools.Packaging, program); ok {
		return h
	}
	pkg, _ := bench.PackageFor(tools.Packaging, program)
	return tools.InstallHint(program, pkg)
}

// toolsNeeded lists the programs role's end of g runs: the benchmark
// tools of every run, and what the OS's driver uses to change and observe
// settings and to pin (guest.Tools).
func toolsNeeded(g *plan.Group, role, osName string, pinned bool) []string {
	need := map[string]bool{}
	tools := guest.For(osName).Tools
	for _, r := range g.Runs {
		// The benchmark tool's own programs, on the server and client
		// ends (a router runs none).
		for _, p := range bench.ProgramsFor(r.Spec.Bench.Tool, role) {
			need[p] = true
		}
		if bg := r.Spec.Background; bg != nil {
			for _, p := range bench.ProgramsFor(bg.Tool, role) {
				need[p] = true
			}
		}
		s := r.Spec.Server
		if role == "client" {
			s = r.Spec.Client
		}
		if role == "router" {
			s = r.Spec.Router
		} else {
			s.Firewall = "" // a firewall's program is checked on a router alone; an end's fails at apply
		}
		if tools.For != nil {
			for _, t := range tools.For(s) {
				need[t] = true
			}
		}
	}
	for _, t := range tools.Always {
		need[t] = true
	}
	if pinned && role != "router" && tools.Pin != "" {
		need[tools.Pin] = true
	}
	if g.Cross() && role == "client" && tools.Probe != "" {
		need[tools.Probe] = true // the path check's (pathmtu.go)
	}
	out := make([]string, 0, len(need))
	for t := range need {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// checkTools makes sure an end has every program its runs need, with one
// command, before the first run: a missing iperf3 is one clear error
// naming the guest and the package, not a failure in every run.
func checkTools(ctx context.Context, side end, osName string, tools []string) error {
	if len(tools) == 0 {
		return nil
	}
	script := `for t in "$@"; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done`
	res, err := side.t.Run(ctx, guest.Cmd{Argv: append([]string{"sh", "-c", script, "sh"}, tools...)})
	if err != nil {
		return fmt.Errorf("%s: check the programs its runs need: %w", side.in.Address, err)
	}
	missing := strings.Fields(string(res.Stdout))
	missing = slices.DeleteFunc(missing, func(t string) bool { return !slices.Contains(tools, t) })
	if len(missing) == 0 {
		return nil
	}
	return &MissingToolsError{Guest: side.in.Address, OS: osName, Missing: missing}
}

// checkGroupTools runs checkTools on every end of l, and reports every
// missing program of every end at once.
func checkGroupTools(ctx context.Context, g *plan.Group, server, client end, router *end) error {
	type side struct {
		e        end
		role, os string
	}
	sides := []side{{server, "server", g.Server.Template.OS}, {client, "client", g.Client.Template.OS}}
	if router != nil && g.Router != nil {
		sides = append(sides, side{*router, "router", g.Router.Template.OS})
	}
	var errs []error
	for _, s := range sides {
		tools := toolsNeeded(g, s.role, s.os, len(s.e.ep().CPUs) > 0)
		if err := checkTools(ctx, s.e, s.os, tools); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
