package sshtest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// ServeAgent runs an in-memory ssh-agent (x/crypto/ssh/agent keyring)
// holding keys on a Unix socket for the test's lifetime and returns the
// socket's path (what SSH_AUTH_SOCK names).
func ServeAgent(t testing.TB, keys ...any) string {
	t.Helper()
	kr := agent.NewKeyring()
	for _, k := range keys {
		if err := kr.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = agent.ServeAgent(kr, c); c.Close() }()
		}
	}()
	return sock
}

// RawKey reads an OpenSSH private key file as the key itself (what an
// agent's keyring holds).
func RawKey(t testing.TB, file string) any {
	t.Helper()
	pem, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	k, err := xssh.ParseRawPrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
