// Package pgcluster starts a private PostgreSQL cluster for tests: initdb
// into a temporary directory, the server listening on a Unix socket in it
// and on no TCP port, run as the unprivileged "postgres" user (initdb and
// postgres refuse root), and removed when the test ends. Tests use it
// instead of a mock database.
package pgcluster

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	// URL connects to its "postgres" database as superuser over the socket.
	URL  string
	dir  string
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{} // closed when the server exits
	exit error         // how it exited, once done is closed
}

// Bin finds the newest PostgreSQL's binaries: /usr/lib/postgresql/*/bin
// (Debian's layout), "" when none is installed.
func Bin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(dirs, func(a, b string) int { return version(a) - version(b) })
	if len(dirs) == 0 {
		return ""
	}
	return filepath.Dir(dirs[len(dirs)-1])
}

func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Start starts a cluster for t and removes it when t ends. Without root
// or PostgreSQL it skips t — or fails it under CI (CI=true), which
// installs both, so that a skip there cannot hide a broken setup.
func Start(t testing.TB) *Cluster {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("CI") == "true" {
		skip = t.Fatalf
	}
	bin := Bin()
	if bin == "" {
		skip("needs PostgreSQL (initdb under /usr/lib/postgresql/*/bin; apt-get install postgresql)")
	}
	if os.Geteuid() != 0 {
		skip("needs root to run PostgreSQL as the postgres user")
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		skip("needs the postgres user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "lab-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{dir: dir, bin: bin, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	t.Cleanup(func() {
		c.Kill()
		_ = os.RemoveAll(dir)
	})
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	out, err := c.command("initdb", "-D", c.data(), "--auth=trust", "--username=postgres", "--encoding=UTF8", "--no-sync").CombinedOutput()
	if err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.URL = "postgres://postgres@/postgres?host=" + dir + "&sslmode=disable"
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// command runs a PostgreSQL binary as the postgres user.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Setpgid: true}
	return cmd
}

// Restart starts the server (after Kill) and waits until it accepts
// connections.
func (c *Cluster) Restart() error {
	c.cmd = c.command("postgres", "-D", c.data(), "-k", c.dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "max_connections=40")
	log, err := os.Create(filepath.Join(c.dir, "postgres.log"))
	if err != nil {
		return err
	}
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	c.done = make(chan struct{})
	go func() { c.exit = c.cmd.Wait(); _ = log.Close(); close(c.done) }()
	db, err := sql.Open("pgx", c.URL)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-c.done:
			out, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
			return fmt.Errorf("postgres exited: %v\n%s", c.exit, out)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 60 s: %w", err)
		}
	}
}

// Kill kills the server and its backends, as a crash or a pulled plug
// would, and waits until none of them runs. The postmaster's process group
// is not enough: every backend calls setsid() when it starts
// (InitPostmasterChild, src/backend/utils/init/miscinit.c), so it
// outlives a SIGKILL to the postmaster's group until it notices the
// postmaster's death — long enough to answer a query (a test once took an
// advisory lock after Kill). The backends are found by their working
// directory, the cluster's data directory.
func (c *Cluster) Kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
	c.cmd = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := processesIn(c.data())
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesIn lists the live processes (zombies excluded: their sockets
// are closed) whose working directory is dir.
func processesIn(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err != nil || cwd != dir {
			continue
		}
		// /proc/PID/stat: "pid (comm) state …"; comm may hold spaces and
		// parentheses, so the state follows the last ')'.
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
