// Package rawconn makes a TCP connection's reads and writes raw system
// calls the Go runtime is not told of, and arms its deadlines in the
// runtime's poller only when they must be: the two costs of a small
// request on a keep-alive connection that a plain net.TCPConn adds to the
// socket's own (PERFORMANCE.md, "Raw socket I/O in the front end" and
// "getBalance against the setup").
package rawconn

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Wrap returns tc with raw reads and writes (see rawConn), or tc itself
// in race builds (raceEnabled) and when it has no file descriptor to make
// them on. The node's listener wraps every accepted connection with it, and
// loadtest every connection it dials.
func Wrap(tc *net.TCPConn) net.Conn {
	if raceEnabled {
		return tc
	}
	return wrap(tc)
}

// wrap is Wrap in race builds too, for tests of rawConn itself.
func wrap(tc *net.TCPConn) net.Conn {
	rc, err := tc.SyscallConn()
	if err != nil {
		return tc
	}
	return newRawConn(tc, rc)
}

// rawConn is a TCP connection whose Read and Write are recv(2) and send(2)
// with MSG_DONTWAIT made as raw system calls: the runtime is not told of
// them. A non-blocking call on a socket never waits, and telling the
// runtime costs more than the call's user-space part; worse, a loopback
// send runs the receiver's TCP work inside the call, which can last past
// the 20 µs after which the runtime's monitor hands the P to another
// thread, and that monitor then keeps waking every 20 µs to look. When the
// socket is not ready, the call waits in the runtime's poller as a plain
// net.Conn does (syscall.RawConn's Read and Write), deadlines included.
// The price: a thread the kernel preempts inside a raw call keeps its P,
// which an announced call would have handed on; on cores shared with other
// busy processes that lengthens the tail at saturation (PERFORMANCE.md,
// "Raw socket I/O in the front end").
type rawConn struct {
	*net.TCPConn
	rc   syscall.RawConn
	lazy lazyRawConn // rc, waiting until the wanted deadlines
	r    rawHalf     // reads
	w    rawHalf     // writes
}

// rawHalf is one direction's scratch state, with its system call and
// RawConn's Read or Write bound to it once (a closure per call would
// allocate), and a mutex that keeps net.Conn's promise that goroutines may
// call it at once; fasthttp and the WebSocket code never contend for it.
type rawHalf struct {
	mu    sync.Mutex
	buf   []byte
	n     int
	errno syscall.Errno
	call  func(fd uintptr) bool
	wait  func(func(fd uintptr) bool) error
	dl    lazyDeadline
}

func newRawConn(tc *net.TCPConn, rc syscall.RawConn) *rawConn {
	c := &rawConn{TCPConn: tc, rc: rc}
	c.r.call, c.r.wait, c.r.dl.arm = c.r.recv, rc.Read, tc.SetReadDeadline
	c.w.call, c.w.wait, c.w.dl.arm = c.w.send, rc.Write, tc.SetWriteDeadline
	c.lazy = lazyRawConn{rc: rc, r: &c.r.dl, w: &c.w.dl}
	return c
}

// run makes h's system call on b until it reports done, waiting in the
// poller whenever it asks to.
func (h *rawHalf) run(b []byte) (n int, errno syscall.Errno, err error) {
	h.mu.Lock()
	h.buf, h.n, h.errno = b, 0, 0
	for {
		if err = h.wait(h.call); !h.dl.retry(err) {
			break
		}
	}
	n, errno = h.n, h.errno
	h.buf = nil
	h.mu.Unlock()
	return n, errno, err
}

// SyscallConn is the underlying socket's, for code that writes to it itself
// (the WebSocket broadcaster), its waits ending at the wanted deadlines.
func (c *rawConn) SyscallConn() (syscall.RawConn, error) { return &c.lazy, nil }

// SetReadDeadline, SetWriteDeadline and SetDeadline arm the poller lazily
// (lazyDeadline).
func (c *rawConn) SetReadDeadline(t time.Time) error  { return c.r.dl.set(t) }
func (c *rawConn) SetWriteDeadline(t time.Time) error { return c.w.dl.set(t) }

func (c *rawConn) SetDeadline(t time.Time) error {
	if err := c.r.dl.set(t); err != nil {
		return err
	}
	return c.w.dl.set(t)
}

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, errno, err := c.r.run(b)
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("recvfrom", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// recv is one non-blocking recv(2); false asks RawConn.Read to wait until
// the socket is readable and call it again.
func (h *rawHalf) recv(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd,
			uintptr(unsafe.Pointer(&h.buf[0])), uintptr(len(h.buf)), syscall.MSG_DONTWAIT, 0, 0)
		switch errno {
		case 0:
			h.n = int(n)
			return true
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			h.errno = errno
			return true
		}
	}
}

func (c *rawConn) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, errno, err := c.w.run(b)
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("sendto", errno))
	}
	return n, nil
}

// send writes what is left of buf with non-blocking send(2)s; false asks
// RawConn.Write to wait until the socket is writable and call it again.
// MSG_NOSIGNAL: a peer gone away is EPIPE, never a signal.
func (h *rawHalf) send(fd uintptr) bool {
	for h.n < len(h.buf) {
		rest := h.buf[h.n:]
		n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd,
			uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)), syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
		switch errno {
		case 0:
			h.n += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			h.errno = errno
			return true
		}
	}
	return true
}

func (c *rawConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
