// Package wsprobe is a minimal WebSocket client for measuring: raw sockets
// read by epoll loops, kernel receive timestamps, and frame-level control
// for the abuse battery.
package wsprobe

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/url"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn is the fan-out probes' WebSocket client: the subscriber side
// of one connection. It is minimal on purpose.
//
// The probe shares the machine's CPUs with the server it measures and
// multiplexes thousands of subscribers onto them, which real subscribers
// (each on its own machine) never do. So it costs as little as it can: a
// raw socket outside the Go runtime's poller, read by a Loop (one
// epoll thread for thousands of connections, one recvmsg per readiness
// and no goroutine wake-up per message), one buffer, no per-message
// allocation. It asks the kernel when each segment reached the socket
// (SO_TIMESTAMPNS): a message's delivery time is when its last byte
// arrived at the subscriber, not when the probe got round to reading it.
// The read time is kept as well, so reports can show both.
//
// Until a Loop takes it (add), the socket is blocking with the dial's
// timeout on every read and write: the handshake, the subscription and
// tests read it with next.
type Conn struct {
	Fd int
	// buf[start:end] is received and not yet consumed.
	buf        []byte
	start, end int
	// msg joins the fragments of a fragmented message; msgDone says it was
	// returned and is to be reset.
	msg     []byte
	msgDone bool
	hdr     unix.Msghdr
	iov     unix.Iovec
	oob     [64]byte
	arrived time.Time // kernel arrival time of the newest segment read
	out     []byte    // frames being written
	// nonblocking is set once a loop reads the socket.
	nonblocking bool
	// onMessage and onClose are the loop's calls for each data message
	// (valid during the call) and for the end of the connection.
	onMessage func(msg []byte, arrived time.Time)
	onClose   func(error)
}

const (
	opContinuation = 0x0
	OpText         = 0x1
	opBinary       = 0x2
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xa

	probeMaxMessage = 16 << 20
)

var errProbeClosed = errors.New("websocket closed by the server")

// Dial opens a WebSocket to rawURL (ws:// only: the probes run on
// loopback) with kernel receive timestamps on.
func Dial(rawURL string, timeout time.Duration) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("probe url %q: %w", rawURL, err)
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("probe url %q: only ws:// is supported", rawURL)
	}
	addr, err := net.ResolveTCPAddr("tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("probe url %q: %w", rawURL, err)
	}
	family, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: addr.Port, Addr: [16]byte(addr.IP.To16())})
	if ip4 := addr.IP.To4(); ip4 != nil {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: addr.Port, Addr: [4]byte(ip4)}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	c := &Conn{Fd: fd, buf: make([]byte, 4096)}
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	if err := errors.Join(
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv),
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv),
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1),
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1),
	); err != nil {
		c.Close()
		return nil, fmt.Errorf("socket options: %w", err)
	}
	if err := connect(fd, sa, timeout); err != nil {
		c.Close()
		return nil, fmt.Errorf("connect %s: %w", u.Host, err)
	}
	if err := c.handshake(u); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// connect is a blocking connect that a signal does not cut short: the Go
// runtime's preemption signals reach threads in system calls, and an
// interrupted connect goes on in the background, so it waits for that.
func connect(fd int, sa unix.Sockaddr, timeout time.Duration) error {
	err := unix.Connect(fd, sa)
	if err != unix.EINTR {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errors.New("timed out")
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(pfd, int(left.Milliseconds())+1)
		if err == unix.EINTR || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return err
		}
		soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			return err
		}
		if soerr != 0 {
			return syscall.Errno(soerr)
		}
		return nil
	}
}

const websocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

func (c *Conn) handshake(u *url.URL) error {
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	path := u.RequestURI()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if err := c.writeAll([]byte(req)); err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	for {
		if i := bytes.Index(c.buf[c.start:c.end], []byte("\r\n\r\n")); i >= 0 {
			head := c.buf[c.start : c.start+i+4]
			c.start += i + 4
			return checkUpgrade(head, key)
		}
		if c.end-c.start > 16<<10 {
			return errors.New("handshake: response header too large")
		}
		if err := c.Fill(); err != nil {
			return fmt.Errorf("handshake: %w", err)
		}
	}
}

func checkUpgrade(head []byte, key string) error {
	lines := bufio.NewScanner(bytes.NewReader(head))
	lines.Scan()
	if status := lines.Text(); !bytes.HasPrefix([]byte(status), []byte("HTTP/1.1 101")) {
		return fmt.Errorf("handshake: %q", status)
	}
	sum := sha1.Sum([]byte(key + websocketGUID))
	want := base64.StdEncoding.EncodeToString(sum[:])
	for lines.Scan() {
		name, value, ok := bytes.Cut(lines.Bytes(), []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Sec-WebSocket-Accept")) {
			if string(bytes.TrimSpace(value)) != want {
				return errors.New("handshake: wrong Sec-WebSocket-Accept")
			}
			return nil
		}
	}
	return errors.New("handshake: no Sec-WebSocket-Accept")
}

// Subscribe sends an eth_subscribe request with id 1 and waits (within
// the dial's timeout per read) for its answer.
func (c *Conn) Subscribe(request []byte) error {
	if err := c.Write(OpText, request); err != nil {
		return err
	}
	for {
		msg, _, err := c.Next()
		if err != nil {
			return err
		}
		if bytes.Contains(msg, []byte(`"id":1`)) {
			if !bytes.Contains(msg, []byte(`"result"`)) {
				return fmt.Errorf("subscribe: %s", msg)
			}
			return nil
		}
	}
}

// Next waits for the next data message on a blocking socket and returns
// it with when its last byte reached the socket. The message is valid
// until the next call.
func (c *Conn) Next() ([]byte, time.Time, error) {
	for {
		msg, ok, err := c.pop()
		if err != nil || ok {
			return msg, c.arrived, err
		}
		if err := c.Fill(); err != nil {
			return nil, time.Time{}, err
		}
	}
}

// readReady is a loop's turn on a readable socket: one recvmsg, then every
// whole message it completed goes to onMessage.
func (c *Conn) readReady() error {
	if err := c.Fill(); err != nil {
		if err == unix.EAGAIN {
			return nil
		}
		return err
	}
	for {
		msg, ok, err := c.pop()
		if err != nil || !ok {
			return err
		}
		c.onMessage(msg, c.arrived)
	}
}

// pop takes the next data message off the buffer, answering pings on the
// way; ok is false when the buffer holds no whole message.
func (c *Conn) pop() (msg []byte, ok bool, err error) {
	if c.msgDone {
		c.msg, c.msgDone = c.msg[:0], false
	}
	for {
		fin, op, payload, err := c.Frame()
		if err != nil || op == 0xff {
			return nil, false, err
		}
		switch op {
		case OpPing:
			if err := c.Write(OpPong, payload); err != nil {
				return nil, false, err
			}
		case OpPong:
		case OpClose:
			return nil, false, fmt.Errorf("%w: %q", errProbeClosed, payload)
		case OpText, opBinary, opContinuation:
			if fin && len(c.msg) == 0 {
				return payload, true, nil
			}
			c.msg = append(c.msg, payload...)
			if fin {
				c.msgDone = true
				return c.msg, true, nil
			}
		default:
			return nil, false, fmt.Errorf("websocket: unknown opcode %d", op)
		}
	}
}

// Frame takes one whole frame off the buffer; op is 0xff when the buffer
// holds less than a frame.
func (c *Conn) Frame() (fin bool, op byte, payload []byte, err error) {
	b := c.buf[c.start:c.end]
	if len(b) < 2 {
		return false, 0xff, nil, nil
	}
	fin, op = b[0]&0x80 != 0, b[0]&0x0f
	masked := b[1]&0x80 != 0
	n, h := uint64(b[1]&0x7f), 2
	switch n {
	case 126:
		if len(b) < 4 {
			return false, 0xff, nil, nil
		}
		n, h = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return false, 0xff, nil, nil
		}
		n, h = binary.BigEndian.Uint64(b[2:]), 10
	}
	if n > probeMaxMessage {
		return false, 0, nil, fmt.Errorf("websocket: %d-byte frame", n)
	}
	var mask []byte
	if masked {
		if len(b) < h+4 {
			return false, 0xff, nil, nil
		}
		mask, h = b[h:h+4], h+4
	}
	if uint64(len(b)-h) < n {
		return false, 0xff, nil, nil
	}
	payload = b[h : h+int(n)]
	if masked { // servers do not mask, but a frame that is masked is read right
		for i := range payload {
			payload[i] ^= mask[i&3]
		}
	}
	c.start += h + int(n)
	return fin, op, payload, nil
}

// Fill makes room and reads once more from the socket.
func (c *Conn) Fill() error {
	if c.start == c.end {
		c.start, c.end = 0, 0
	} else if c.start > 0 && c.end == len(c.buf) {
		c.end = copy(c.buf, c.buf[c.start:c.end])
		c.start = 0
	}
	if c.end == len(c.buf) {
		c.buf = append(c.buf, make([]byte, len(c.buf))...)
	}
	n, err := c.recv(c.buf[c.end:])
	c.end += n
	return err
}

// recv is one recvmsg that also takes the kernel's arrival timestamp. A
// loop's non-blocking read is a raw syscall: it never waits, and telling
// the runtime costs more than the read.
func (c *Conn) recv(p []byte) (int, error) {
	c.iov.Base = &p[0]
	c.iov.SetLen(len(p))
	c.hdr = unix.Msghdr{Iov: &c.iov, Iovlen: 1, Control: &c.oob[0]}
	c.hdr.SetControllen(len(c.oob))
	for {
		var (
			n     uintptr
			errno syscall.Errno
		)
		if c.nonblocking {
			n, _, errno = unix.RawSyscall(unix.SYS_RECVMSG, uintptr(c.Fd), uintptr(unsafe.Pointer(&c.hdr)), 0)
		} else {
			n, _, errno = unix.Syscall(unix.SYS_RECVMSG, uintptr(c.Fd), uintptr(unsafe.Pointer(&c.hdr)), 0)
		}
		switch {
		case errno == unix.EINTR:
			continue
		case errno == unix.EAGAIN && !c.nonblocking:
			return 0, errors.New("read timed out")
		case errno != 0:
			return 0, errno
		case n == 0:
			return 0, io.EOF
		}
		c.arrived = c.timestamp()
		return int(n), nil
	}
}

// timestamp reads SCM_TIMESTAMPNS from the last recvmsg's control data,
// falling back to now.
func (c *Conn) timestamp() time.Time {
	oob := c.oob[:c.hdr.Controllen]
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		if h.Len < unix.SizeofCmsghdr || int(h.Len) > len(oob) {
			break
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS &&
			int(h.Len) >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			ts := (*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
			return time.Unix(ts.Sec, ts.Nsec)
		}
		oob = oob[min(unix.CmsgSpace(int(h.Len)-unix.CmsgLen(0)), len(oob)):]
	}
	return time.Now()
}

// Write sends one masked frame, as a client must.
func (c *Conn) Write(op byte, payload []byte) error {
	out := append(c.out[:0], 0x80|op)
	switch n := len(payload); {
	case n < 126:
		out = append(out, 0x80|byte(n))
	case n <= 0xffff:
		out = append(out, 0x80|126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	var mask [4]byte
	binary.BigEndian.PutUint32(mask[:], mrand.Uint32())
	out = append(out, mask[:]...)
	for i, b := range payload {
		out = append(out, b^mask[i&3])
	}
	c.out = out
	return c.writeAll(out)
}

// writeAll writes b whole. Once a loop reads the socket, the writes are
// pongs, far smaller than an idle socket's send buffer.
func (c *Conn) writeAll(b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(c.Fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return fmt.Errorf("write: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// Close closes the socket; the loop that read it must have stopped.
func (c *Conn) Close() error {
	if c.Fd < 0 {
		return nil
	}
	err := unix.Close(c.Fd)
	c.Fd = -1
	return err
}
