package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
	"time"

	"github.com/lab-bench/lab/internal/atomicfile"
)

// LockInfo describes who holds the state lock. It is written into the lock
// file for messages only: the flock on that file is what excludes others.
type LockInfo struct {
	// ID identifies this hold of the lock (random, filled in by Lock).
	ID string `json:"id"`
	// LabID is the lab whose state is locked.
	LabID string `json:"lab_id,omitempty"`
	// Operation is the verb holding the lock: "apply", "destroy", "plan".
	Operation string    `json:"operation"`
	Who       string    `json:"who"` // user@host
	PID       int       `json:"pid"`
	Created   time.Time `json:"created"`
}

// NewLockInfo describes the current process running op on lab labID.
func NewLockInfo(labID, op string) LockInfo {
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	if h, err := os.Hostname(); err == nil {
		who += "@" + h
	}
	return LockInfo{
		ID:        newLockID(),
		LabID:     labID,
		Operation: op,
		Who:       who,
		PID:       os.Getpid(),
		Created:   time.Now(),
	}
}

// LockedError is returned by Lock when another process (or another Lock in
// this process) holds the state lock.
type LockedError struct {
	Path string
	// Holder is what the holder wrote into the lock file; nil when it could
	// not be read (the holder may be writing it right now).
	Holder *LockInfo
}

func (e *LockedError) Error() string {
	h := e.Holder
	if h == nil {
		return fmt.Sprintf("state is locked by another process (lock file %s)", e.Path)
	}
	since := h.Created.Local().Format("15:04:05")
	if y, m, d := h.Created.Local().Date(); !sameDay(y, m, d, time.Now()) {
		since = h.Created.Local().Format("2006-01-02 15:04:05")
	}
	msg := fmt.Sprintf("state is locked by %s (pid %d, %s) since %s", h.Operation, h.PID, h.Who, since)
	if h.LabID != "" {
		msg += "; lab id " + h.LabID
	}
	if h.ID != "" {
		msg += "; lock id " + h.ID
	}
	return msg
}

func sameDay(y int, m time.Month, d int, t time.Time) bool {
	ty, tm, td := t.Date()
	return y == ty && m == tm && d == td
}

// Lock takes the state lock without waiting: an exclusive flock on
// .lab/state.lock, then holder (with ID filled in when empty) written into
// it. When the lock is held it returns a *LockedError naming the holder. A
// lock file left behind by a process that has died carries no flock and is
// simply taken over. Holding the lock, it removes the temporary files a
// save killed half-way left (see removeStrayTemps). The returned unlock truncates the file and releases
// the lock; it is safe to call once.
func (st Store) Lock(holder LockInfo) (unlock func() error, err error) {
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock state: %w", err)
	}
	path := filepath.Join(st.Dir, LockName)
	// O_NOFOLLOW: a symlink there is refused (ELOOP), not followed to a
	// file lab would then truncate.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, fileMode)
	if err != nil {
		return nil, fmt.Errorf("lock state: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer func() { _ = f.Close() }() // read-only use from here on
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: path, Holder: readLockInfo(f)}
		}
		return nil, fmt.Errorf("lock state: flock %s: %w", path, err)
	}
	if holder.ID == "" {
		holder.ID = newLockID()
	}
	if err := writeLockInfo(f, holder); err != nil {
		// Closing the file releases the lock too; the write error is the news.
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
		return nil, fmt.Errorf("lock state: write %s: %w", path, err)
	}
	st.removeStrayTemps()
	unlock = func() error {
		terr := f.Truncate(0)
		uerr := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		cerr := f.Close()
		if err := errors.Join(terr, uerr, cerr); err != nil {
			return fmt.Errorf("unlock state: %w", err)
		}
		return nil
	}
	return unlock, nil
}

// processStart is when this process started, near enough: a temporary
// file older than it was made by another process.
var processStart = time.Now()

// removeStrayTemps removes the temporary files of state.json and its
// backup (atomicfile's ".state.json.tmp-<digits>") that a lab killed
// during a save (kill -9, power loss) left in the state directory. Every
// save is made holding the state lock, which the caller now holds, so
// such a file belongs to no running lab; to be sure, only files older
// than this process are removed, and only names exactly of that pattern
// — nothing else in the directory is touched. Best effort: a file that
// cannot be removed is left for the next command.
func (st Store) removeStrayTemps() {
	entries, err := os.ReadDir(st.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !(atomicfile.IsTemp(e.Name(), FileName) || atomicfile.IsTemp(e.Name(), BackupName)) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(processStart) {
			_ = os.Remove(filepath.Join(st.Dir, e.Name())) // best effort, see above
		}
	}
}

func writeLockInfo(f *os.File, info LockInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(append(data, '\n'), 0); err != nil {
		return err
	}
	return f.Sync()
}

func readLockInfo(f *os.File) *LockInfo {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<20))
	if err != nil || len(data) == 0 {
		return nil
	}
	var info LockInfo
	if json.Unmarshal(data, &info) != nil {
		return nil
	}
	return &info
}

func newLockID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
