// Package headless runs a page in headless Chromium for tests, offline:
// a fresh profile, every host name failing to resolve, console messages
// logged. It is internal/report's Chromium check (html_test.go) made
// available to other packages' tests (internal/history's).
package headless

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Chromium finds a Chromium binary; without one the test skips, except
// under CI=true, where CI installs it and a skip would hide a broken setup.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("needs chromium (apt-get install chromium)")
	}
	t.Skip("needs chromium (apt-get install chromium)")
	return ""
}

// Run loads the local file page in Chromium bin with extra flags
// ("--dump-dom", "--screenshot=…") and returns its standard output (the
// DOM after the page's scripts ran, with --dump-dom) and the console
// messages, errors included.
func Run(t testing.TB, bin, page string, extra ...string) (stdout string, console []string) {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0"}
	args = append(append(args, extra...), "file://"+page)
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, errOut.String())
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		if err := <-done; err != nil {
			t.Logf("chromium, killed: %v", err)
		}
		t.Fatal("chromium did not finish in 90 s")
	}
	for _, l := range strings.Split(errOut.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			console = append(console, l)
		}
	}
	return out.String(), console
}
