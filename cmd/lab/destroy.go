package main

import (
	"context"
	"fmt"

	labview "github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/operation"
)

// runDestroy is `lab destroy`: one operation call
// (operation.Operation.Destroy), shown through destroy's view.
func runDestroy(g *globals, args []string) error {
	fs := newFlags(g, "destroy", "destroy [-auto-approve] [-input=false] [-orphans [-workspace ID]] [-abandon ADDRESS] [-json] [-lock-timeout D]")
	var v varFlags
	v.register(fs)
	auto := fs.Bool("auto-approve", false, "skip the interactive approval")
	input := fs.Bool("input", true, "ask for approval on standard input; -input=false never asks, so it needs -auto-approve")
	orphans := fs.Bool("orphans", false, "also remove objects tagged as this lab's and this workspace's that the state does not list")
	workspace := fs.String("workspace", "", "with -orphans: sweep the workspace `ID` instead of this directory's (one whose state was lost)")
	asJSON := fs.Bool("json", false, "print machine-readable events, one JSON object per line")
	abandon := map[string]bool{}
	fs.Func("abandon", "let the borrowed machine `ADDRESS` (a hosts machine) go without logging in to restore its settings, which are printed for you to put back (repeatable)",
		func(s string) error { abandon[s] = true; return nil })
	registerLockTimeout(g, fs)
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	if err := noInput("destroy", *input, *auto); err != nil {
		return err
	}
	if *workspace != "" && !*orphans {
		return fmt.Errorf("-workspace names the workspace whose orphans -orphans removes: add -orphans")
	}
	if *workspace != "" && !operation.ValidWorkspaceID(*workspace) {
		return fmt.Errorf("-workspace %q is not a workspace id: name exactly one workspace (letters and digits, as a \"Left alone\" line of `lab destroy -orphans` prints it); patterns such as * are refused, since they would take other directories' live machines", *workspace)
	}
	return g.op().Destroy(context.Background(), operation.DestroyArgs{Vars: v.opVars(), AutoApprove: *auto, Orphans: *orphans,
		Workspace: *workspace, Abandon: abandon, OS: guest.NewOS}, labview.Destroy{Stdout: g.stdout, Stderr: g.stderr, Stdin: g.stdin, JSON: *asJSON})
}
