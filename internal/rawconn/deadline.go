package rawconn

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
)

// lazyDeadline is one direction's deadline of a rawConn, armed in the
// runtime's poller only when it must be. fasthttp sets three deadlines per
// request (idle, header and write), each always later than the last; each
// cost two clock reads, a lock and a timer update in the poller, 2.6% of the
// node's CPU under a getBalance load (PERFORMANCE.md, "getBalance against
// the setup"). Here a later deadline is only recorded: the poller keeps the
// earlier one, and when that one passes, the waiting call finds the wanted
// deadline still ahead, arms it and waits on. A deadline never fires late:
// the armed one is never after the wanted one, and an earlier one is armed
// at once, which also wakes a call already waiting.
type lazyDeadline struct {
	mu    sync.Mutex
	want  time.Time // what the connection's user set; zero: none
	armed time.Time // what the poller has; zero: none
	arm   func(time.Time) error
}

// set records t, and arms it when the poller's deadline is not already
// at or before it.
func (d *lazyDeadline) set(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.want = t
	if t.IsZero() || (!d.armed.IsZero() && !t.Before(d.armed)) {
		return nil // the poller fires no later than t; rearm then decides
	}
	d.armed = t
	return d.arm(t)
}

// rearm is for a call the poller ended with its deadline: it reports
// whether the wanted deadline is still ahead (or none is wanted), arming it
// so that the call can wait again.
func (d *lazyDeadline) rearm() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.want.IsZero() && !time.Now().Before(d.want) {
		return false
	}
	d.armed = d.want
	return d.arm(d.want) == nil
}

// retry reports whether err is the poller's deadline passing before the
// wanted one, which rearm has moved the poller on to.
func (d *lazyDeadline) retry(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded) && d.rearm()
}

// lazyRawConn is a rawConn's socket for code that waits on it itself (the
// WebSocket broadcaster's writes, hang-up checks): its waits honour the
// wanted deadlines, as rawConn's own do.
type lazyRawConn struct {
	rc   syscall.RawConn
	r, w *lazyDeadline
}

func (l *lazyRawConn) Control(f func(fd uintptr)) error { return l.rc.Control(f) }

func (l *lazyRawConn) Read(f func(fd uintptr) bool) error {
	for {
		if err := l.rc.Read(f); !l.r.retry(err) {
			return err
		}
	}
}

func (l *lazyRawConn) Write(f func(fd uintptr) bool) error {
	for {
		if err := l.rc.Write(f); !l.w.retry(err) {
			return err
		}
	}
}
