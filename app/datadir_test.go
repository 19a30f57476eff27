package app

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// A second holder of a datadir is refused with the first one's pid once it
// has started, and a marker is left behind only by a run that started and
// did not stop cleanly.
func TestDataDirLock(t *testing.T) {
	dir := t.TempDir()
	first, err := lockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first.dirty {
		t.Fatal("a new datadir is dirty")
	}
	if _, err := lockDataDir(dir); err == nil || !strings.Contains(err.Error(), "in use by another process") || !strings.Contains(err.Error(), "--datadir") {
		t.Fatalf("second lock while starting: %v", err)
	}
	if err := first.markRunning(); err != nil {
		t.Fatal(err)
	}
	pid := "(pid " + strconv.Itoa(os.Getpid()) + ")"
	if _, err := lockDataDir(dir); err == nil || !strings.Contains(err.Error(), "another stocknode "+pid) {
		t.Fatalf("second lock once started: %v, want the pid", err)
	}
	if err := first.release(false); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string // of this row's run
		wantDirty bool   // at its lock: what the runs before left
		start     bool   // it started (markRunning)
		clean     bool   // it stopped cleanly
	}{
		{"a start that fails after a killed run", true, false, false},
		{"a clean run after it", true, true, true},
		{"a start that fails after a clean run", false, false, false},
		{"a run that is killed", false, true, false},
		{"the next run", true, true, true},
		{"and the one after", false, false, true},
	} {
		d, err := lockDataDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d.dirty != tt.wantDirty {
			t.Errorf("%s: dirty %v, want %v", tt.name, d.dirty, tt.wantDirty)
		}
		if tt.start {
			if err := d.markRunning(); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.release(tt.clean); err != nil {
			t.Fatal(err)
		}
	}
}
