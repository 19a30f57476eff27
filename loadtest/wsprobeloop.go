package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// probeLoop reads many probe connections on one thread: epoll, level
// triggered, one recvmsg per ready socket per wake-up. Thousands of
// subscribers then cost the machine one thread's wake-ups instead of a
// goroutine's park and wake-up per message, which leaves more of the CPUs
// to the server being measured.
type probeLoop struct {
	epfd    int
	conns   map[int32]*probeConn // by fd; the loop's own once it runs
	stop    atomic.Bool
	started bool // owner's goroutine only
	done    chan struct{}
}

func newProbeLoop() (*probeLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return &probeLoop{epfd: epfd, conns: map[int32]*probeConn{}, done: make(chan struct{})}, nil
}

// add makes c's socket non-blocking and reads it from the loop, which
// calls onMessage for each data message and onClose once when the
// connection ends (not when the loop is stopped). Add before start.
func (l *probeLoop) add(c *probeConn, onMessage func([]byte, time.Time), onClose func(error)) error {
	if err := unix.SetNonblock(c.fd, true); err != nil {
		return fmt.Errorf("non-blocking: %w", err)
	}
	c.nonblocking, c.onMessage, c.onClose = true, onMessage, onClose
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		return fmt.Errorf("epoll add: %w", err)
	}
	l.conns[int32(c.fd)] = c
	return nil
}

func (l *probeLoop) start() {
	l.started = true
	go l.run()
}

func (l *probeLoop) run() {
	defer close(l.done)
	events := make([]unix.EpollEvent, 256)
	for !l.stop.Load() {
		n, err := unix.EpollWait(l.epfd, events, 50)
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
				unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
				delete(l.conns, ev.Fd)
				c.onClose(err)
			}
		}
	}
}

// close stops the loop if it was started, waits for it, and releases its
// epoll fd; the connections stay open for their owner to close.
func (l *probeLoop) close() {
	l.stop.Store(true)
	if l.started {
		<-l.done
	}
	unix.Close(l.epfd)
}

// probeLoops spreads connections over a few loops.
type probeLoops []*probeLoop

func newProbeLoops(n int) (probeLoops, error) {
	loops := make(probeLoops, max(1, n))
	for i := range loops {
		l, err := newProbeLoop()
		if err != nil {
			loops[:i].close()
			return nil, err
		}
		loops[i] = l
	}
	return loops, nil
}

// add gives c to the i-th connection's loop.
func (ls probeLoops) add(i int, c *probeConn, onMessage func([]byte, time.Time), onClose func(error)) error {
	return ls[i%len(ls)].add(c, onMessage, onClose)
}

func (ls probeLoops) start() {
	for _, l := range ls {
		l.start()
	}
}

// close stops the loops and waits for them.
func (ls probeLoops) close() {
	for _, l := range ls {
		l.close()
	}
}
