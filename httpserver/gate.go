package httpserver

import (
	"net"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// gate holds accepted connections until their first byte arrives, in one
// epoll set of its own, and hands them to the server only then. A
// connection the server holds costs a goroutine, a read buffer and a
// request context, about 11 KB; 20,000 silent connections made 220 MB of
// heap, a garbage collection that took a second, and, when they timed out
// together, 20,000 error answers written at once: the node's other clients
// waited up to a second. Held here, a silent connection costs its socket
// and a queue entry, and one that stays silent for the header timeout is
// closed without a word (what TCP_DEFER_ACCEPT does in the kernel, which
// gives up on it as soon as the SYN queue is full). Clients speak first in
// HTTP, TLS and WebSocket alike, so nobody waits on the gate but them.
type gate struct {
	epfd    int
	timeout time.Duration
	ready   chan net.Conn
	stop    chan struct{}
	done    chan struct{}
	closing sync.Once

	mu    sync.Mutex
	held  map[uint64]*held
	queue []*held // by arrival; entries already handed on are skipped
	next  uint64
}

// held is a connection waiting at the gate.
type held struct {
	c        net.Conn
	raw      syscall.RawConn
	token    uint64
	deadline time.Time
	gone     bool // handed on or closed
}

func newGate(timeout time.Duration) (*gate, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	g := &gate{
		epfd: epfd, timeout: timeout,
		ready: make(chan net.Conn, 256), stop: make(chan struct{}), done: make(chan struct{}),
		held: make(map[uint64]*held),
	}
	go g.run()
	return g, nil
}

// add holds c until it has data, hangs up or times out.
func (g *gate) add(c net.Conn) {
	raw := rawOf(c)
	if raw == nil {
		g.pass(c) // nothing to wait on: the server's own timeouts apply
		return
	}
	g.mu.Lock()
	g.next++
	h := &held{c: c, raw: raw, token: g.next, deadline: time.Now().Add(g.timeout)}
	g.held[h.token] = h
	g.queue = append(g.queue, h)
	g.mu.Unlock()
	var err error
	cerr := raw.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT}
		*(*uint64)(unsafeEventData(&ev)) = h.token
		err = unix.EpollCtl(g.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
	})
	if err != nil || cerr != nil {
		if g.take(h.token) != nil {
			g.pass(c)
		}
	}
}

// pass hands c to the server, unless the gate is shutting down.
func (g *gate) pass(c net.Conn) {
	select {
	case g.ready <- c:
	case <-g.stop:
		c.Close()
	}
}

// take removes a held connection from the gate; nil if it is gone already.
func (g *gate) take(token uint64) *held {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.held[token]
	if h == nil {
		return nil
	}
	delete(g.held, token)
	h.gone = true
	return h
}

// run waits for held connections to speak, hang up or time out.
func (g *gate) run() {
	defer close(g.done)
	events := make([]unix.EpollEvent, 128)
	for {
		select {
		case <-g.stop:
			return
		default:
		}
		n, err := unix.EpollWait(g.epfd, events, g.waitMillis())
		if err != nil && err != unix.EINTR {
			return
		}
		for i := 0; i < n; i++ {
			if h := g.take(*(*uint64)(unsafeEventData(&events[i]))); h != nil {
				g.release(h, events[i].Events&unix.EPOLLIN != 0)
			}
		}
		g.expire()
	}
}

// waitMillis is how long run may wait for events: until the oldest held
// connection's deadline, and at most 100 ms (to see stop).
func (g *gate) waitMillis() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	wait := 100 * time.Millisecond
	for len(g.queue) > 0 && g.queue[0].gone {
		g.queue[0] = nil
		g.queue = g.queue[1:]
	}
	if len(g.queue) > 0 {
		wait = min(wait, max(time.Until(g.queue[0].deadline), time.Millisecond))
	}
	return int(wait / time.Millisecond)
}

// release takes h out of the epoll set and hands it to the server if it
// has data, or closes it.
func (g *gate) release(h *held, hasData bool) {
	h.raw.Control(func(fd uintptr) {
		unix.EpollCtl(g.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
	})
	if hasData {
		g.pass(h.c)
		return
	}
	h.c.Close() // hung up without a word
}

// expire closes the held connections past their deadline.
func (g *gate) expire() {
	now := time.Now()
	for {
		g.mu.Lock()
		if len(g.queue) == 0 || g.queue[0].deadline.After(now) {
			g.mu.Unlock()
			return
		}
		h := g.queue[0]
		g.queue[0] = nil
		g.queue = g.queue[1:]
		live := !h.gone
		if live {
			delete(g.held, h.token)
			h.gone = true
		}
		g.mu.Unlock()
		if live {
			g.release(h, false)
		}
	}
}

// close stops the gate and closes what it holds.
func (g *gate) close() {
	g.closing.Do(g.shut)
}

func (g *gate) shut() {
	close(g.stop)
	<-g.done
	g.mu.Lock()
	held := g.held
	g.held = nil
	g.mu.Unlock()
	for _, h := range held {
		h.c.Close()
	}
	unix.Close(g.epfd)
}

// rawOf is the socket under c, or nil.
func rawOf(c net.Conn) syscall.RawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// unsafeEventData points at an epoll event's 64-bit user data (x/sys
// splits it into Fd and Pad).
func unsafeEventData(ev *unix.EpollEvent) unsafe.Pointer { return unsafe.Pointer(&ev.Fd) }
