package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Version returns lab's version with the VCS revision when known.
func Version() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// runVersion is `lab version [-json]`; -json is modelled on `terraform
// version -json` (its terraform_version and platform, as lab_version and
// platform, plus the Go release lab was built with).
func runVersion(g *globals, args []string) error {
	fs := newFlags(g, "version", "version [-json]")
	asJSON := fs.Bool("json", false, `print {"lab_version": …, "go": …, "platform": "linux_amd64"}`)
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(g, struct {
			Lab      string `json:"lab_version"`
			Go       string `json:"go"`
			Platform string `json:"platform"`
		}{Version(), runtime.Version(), runtime.GOOS + "_" + runtime.GOARCH})
	}
	fmt.Fprintf(g.stdout, "lab %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
