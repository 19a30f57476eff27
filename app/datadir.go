package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// dataDir is a datadir held by this process: a lock that a second node on
// the same datadir finds taken, and the marker of a run in progress.
//
// The lock is an flock on <datadir>/stocknode.lock, which the kernel drops
// with the process, however it ends. The marker, <datadir>/stocknode.running
// with the process's pid, is written only once the node has started
// (markRunning) and removed by a clean shutdown: a marker found at the next
// start means the last run that started did not stop cleanly, not that a
// start failed (a port in use, a bad flag).
type dataDir struct {
	path   string
	lock   *flock.Flock
	marked bool
	dirty  bool // the last run's marker was left behind
}

// lockDataDir creates and locks path, or says which process holds it.
func lockDataDir(path string) (*dataDir, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("create datadir: %w", err)
	}
	lock := flock.New(filepath.Join(path, "stocknode.lock"))
	locked, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock datadir %s: %w", path, err)
	}
	if !locked {
		holder := "another process"
		if pid := markedPID(path); pid > 0 {
			holder = fmt.Sprintf("another stocknode (pid %d)", pid)
		}
		return nil, fmt.Errorf("datadir %s is in use by %s: stop it first, or give this node another --datadir", path, holder)
	}
	d := &dataDir{path: path, lock: lock}
	if _, err := os.Stat(d.marker()); err == nil {
		d.dirty = true
	}
	return d, nil
}

func (d *dataDir) marker() string { return filepath.Join(d.path, "stocknode.running") }

// markedPID is the pid in path's run marker, 0 if none is readable. The
// holder of the lock writes it once started; one still starting has none.
func markedPID(path string) int {
	b, err := os.ReadFile(filepath.Join(path, "stocknode.running"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

// markRunning records that the node has started.
func (d *dataDir) markRunning() error {
	if err := os.WriteFile(d.marker(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("write run marker: %w", err)
	}
	d.marked = true
	return nil
}

// release removes the marker when the node stopped cleanly, and unlocks.
func (d *dataDir) release(clean bool) error {
	var err error
	if clean && d.marked {
		if rerr := os.Remove(d.marker()); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = fmt.Errorf("remove run marker: %w", rerr)
		}
	}
	return errors.Join(err, d.lock.Unlock())
}
