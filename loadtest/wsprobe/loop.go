package wsprobe

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Loop reads many probe connections on one thread: epoll, level
// triggered, one recvmsg per ready socket per wake-up. Thousands of
// subscribers then cost the machine one thread's wake-ups instead of a
// goroutine's park and wake-up per message, which leaves more of the CPUs
// to the server being measured.
type Loop struct {
	epfd    int
	poll    time.Duration   // 0: block in epoll_wait; else sleep this long when nothing is ready
	conns   map[int32]*Conn // by fd; the loop's own once it runs
	stop    atomic.Bool
	started bool // owner's goroutine only
	done    chan struct{}
}

func NewLoop(poll time.Duration) (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return &Loop{epfd: epfd, poll: poll, conns: map[int32]*Conn{}, done: make(chan struct{})}, nil
}

// Add makes c's socket non-blocking and reads it from the loop, which
// calls onMessage for each data message and onClose once when the
// connection ends (not when the loop is stopped). Add before start.
func (l *Loop) add(c *Conn, onMessage func([]byte, time.Time), onClose func(error)) error {
	if err := unix.SetNonblock(c.Fd, true); err != nil {
		return fmt.Errorf("non-blocking: %w", err)
	}
	c.nonblocking, c.onMessage, c.onClose = true, onMessage, onClose
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.Fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.Fd, &ev); err != nil {
		return fmt.Errorf("epoll add: %w", err)
	}
	l.conns[int32(c.Fd)] = c
	return nil
}

func (l *Loop) start() {
	l.started = true
	go l.run()
}

func (l *Loop) run() {
	defer close(l.done)
	events := make([]unix.EpollEvent, 256)
	timeout := 50 // ms
	if l.poll > 0 {
		timeout = 0
	}
	for !l.stop.Load() {
		n, err := unix.EpollWait(l.epfd, events, timeout)
		if n == 0 && l.poll > 0 {
			time.Sleep(l.poll)
			continue
		}
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			panic(fmt.Sprintf("epoll_wait: %v", err)) // a bug: the loop owns a valid epoll fd
		}
		for _, ev := range events[:n] {
			c := l.conns[ev.Fd]
			if c == nil {
				continue
			}
			if err := c.readReady(); err != nil {
				unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.Fd, nil)
				delete(l.conns, ev.Fd)
				c.onClose(err)
			}
		}
	}
}

// Close stops the loop if it was started, waits for it, and releases its
// epoll fd; the connections stay open for their owner to close.
func (l *Loop) close() {
	l.stop.Store(true)
	if l.started {
		<-l.done
	}
	unix.Close(l.epfd)
}

// Loops spreads connections over a few loops.
type Loops []*Loop

func NewLoops(n int, poll time.Duration) (Loops, error) {
	loops := make(Loops, max(1, n))
	for i := range loops {
		l, err := NewLoop(poll)
		if err != nil {
			loops[:i].Close()
			return nil, err
		}
		loops[i] = l
	}
	return loops, nil
}

// Add gives c to the i-th connection's loop.
func (ls Loops) Add(i int, c *Conn, onMessage func([]byte, time.Time), onClose func(error)) error {
	return ls[i%len(ls)].add(c, onMessage, onClose)
}

func (ls Loops) Start() {
	for _, l := range ls {
		l.start()
	}
}

// Close stops the loops and waits for them.
func (ls Loops) Close() {
	for _, l := range ls {
		l.close()
	}
}
