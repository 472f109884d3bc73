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

func runVersion(g *globals, args []string) error {
	fs := newFlags(g, "version", "version")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "lab %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
