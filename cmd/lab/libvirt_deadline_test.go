package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A libvirtd that accepts and never answers (stopped, wedged) fails
// `lab plan` — which asks the host when cpu_pin {} is set — within
// call_timeout, naming the URI, instead of hanging it. (Every other
// provider call is bounded the same way: providers/libvirt's
// TestSilentDaemonFailsWithinCallTimeout.)
func TestLibvirtSilentDaemonDoesNotHang(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "libvirt-sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never read or answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	})
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/kvm-q35-pinned/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(src), "  uri     = var.uri\n", "  uri     = var.uri\n  call_timeout = \"1s\"\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := "qemu+unix:///system?socket=" + sock
	start := time.Now()
	var stdout, stderr bytes.Buffer
	code := Main([]string{"-chdir=" + dir, "plan", "-var", "uri=" + uri, "-var", "accel=tcg"}, strings.NewReader(""), &stdout, &stderr, nil)
	took := time.Since(start)
	if code == 0 || !strings.Contains(stderr.String(), "libvirtd at "+uri+" did not answer") {
		t.Fatalf("plan against a silent libvirtd: exit %d after %v\n%s%s", code, took, stdout.String(), stderr.String())
	}
	if took > 15*time.Second {
		t.Errorf("plan took %v with call_timeout 1s", took)
	}
	t.Logf("plan failed after %v: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
}
