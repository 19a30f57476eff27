package main

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

// probeConn is the fan-out probes' WebSocket client: the subscriber side
// of one connection, read by one goroutine. It is minimal on purpose.
//
// The probe shares the machine's CPUs with the server it measures and
// multiplexes thousands of subscribers onto them, which real subscribers
// (each on its own machine) never do. So it costs as little as it can (one
// buffer, one recvmsg per wake-up, no per-message allocation) and it asks
// the kernel when each segment reached the socket (SO_TIMESTAMPNS): a
// message's delivery time is when its last byte arrived at the subscriber,
// not when the probe's goroutine got round to reading it. The read time is
// kept as well, so reports can show both.
type probeConn struct {
	conn *net.TCPConn
	raw  syscall.RawConn
	// buf[start:end] is received and not yet consumed.
	buf        []byte
	start, end int
	// msg joins the fragments of a fragmented message.
	msg     []byte
	hdr     unix.Msghdr
	iov     unix.Iovec
	oob     [64]byte
	arrived time.Time // kernel arrival time of the newest segment read
	out     []byte    // frames being written
}

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xa

	probeMaxMessage = 16 << 20
)

var errProbeClosed = errors.New("websocket closed by the server")

// dialProbe opens a WebSocket to rawURL (ws:// only: the probes run on
// loopback) with kernel receive timestamps on.
func dialProbe(rawURL string, timeout time.Duration) (*probeConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("probe url %q: %w", rawURL, err)
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("probe url %q: only ws:// is supported", rawURL)
	}
	nc, err := net.DialTimeout("tcp", u.Host, timeout)
	if err != nil {
		return nil, err
	}
	c := &probeConn{conn: nc.(*net.TCPConn), buf: make([]byte, 4096)}
	if c.raw, err = c.conn.SyscallConn(); err != nil {
		nc.Close()
		return nil, err
	}
	var serr error
	if err := c.raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		nc.Close()
		return nil, fmt.Errorf("SO_TIMESTAMPNS: %w", errors.Join(err, serr))
	}
	c.conn.SetDeadline(time.Now().Add(timeout))
	if err := c.handshake(u); err != nil {
		nc.Close()
		return nil, err
	}
	c.conn.SetDeadline(time.Time{})
	return c, nil
}

const websocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

func (c *probeConn) handshake(u *url.URL) error {
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	path := u.RequestURI()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := c.conn.Write([]byte(req)); err != nil {
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
		if err := c.fill(); err != nil {
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

// subscribe sends an eth_subscribe request with id 1 and waits (bounded)
// for its answer.
func (c *probeConn) subscribe(request []byte, timeout time.Duration) error {
	c.conn.SetDeadline(time.Now().Add(timeout))
	defer c.conn.SetDeadline(time.Time{})
	if err := c.write(opText, request); err != nil {
		return err
	}
	for {
		msg, _, err := c.next()
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

// next returns the next data message and when its last byte reached the
// socket. The message is valid until the next call. It answers pings.
func (c *probeConn) next() ([]byte, time.Time, error) {
	c.msg = c.msg[:0]
	for {
		fin, op, payload, err := c.frame()
		if err != nil {
			return nil, time.Time{}, err
		}
		if payload == nil && op == 0xff {
			if err := c.fill(); err != nil {
				return nil, time.Time{}, err
			}
			continue
		}
		switch op {
		case opPing:
			if err := c.write(opPong, payload); err != nil {
				return nil, time.Time{}, err
			}
		case opPong:
		case opClose:
			return nil, time.Time{}, fmt.Errorf("%w: %q", errProbeClosed, payload)
		case opText, opBinary, opContinuation:
			if fin && len(c.msg) == 0 {
				return payload, c.arrived, nil
			}
			c.msg = append(c.msg, payload...)
			if fin {
				return c.msg, c.arrived, nil
			}
		default:
			return nil, time.Time{}, fmt.Errorf("websocket: unknown opcode %d", op)
		}
	}
}

// frame takes one whole frame off the buffer; op is 0xff when the buffer
// holds less than a frame.
func (c *probeConn) frame() (fin bool, op byte, payload []byte, err error) {
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

// fill makes room and reads once more from the socket.
func (c *probeConn) fill() error {
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

// recv is one recvmsg (waiting in the runtime's poller while there is
// nothing to read) that also takes the kernel's arrival timestamp.
func (c *probeConn) recv(p []byte) (int, error) {
	var (
		n     uintptr
		errno syscall.Errno
	)
	err := c.raw.Read(func(fd uintptr) bool {
		c.iov.Base = &p[0]
		c.iov.SetLen(len(p))
		c.hdr = unix.Msghdr{Iov: &c.iov, Iovlen: 1, Control: &c.oob[0]}
		c.hdr.SetControllen(len(c.oob))
		n, _, errno = unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&c.hdr)), 0)
		return errno != unix.EAGAIN
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	c.arrived = c.timestamp()
	return int(n), nil
}

// timestamp reads SCM_TIMESTAMPNS from the last recvmsg's control data,
// falling back to now.
func (c *probeConn) timestamp() time.Time {
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

// write sends one masked frame, as a client must.
func (c *probeConn) write(op byte, payload []byte) error {
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
	mask := binary.BigEndian.AppendUint32(nil, mrand.Uint32())
	out = append(out, mask...)
	for i, b := range payload {
		out = append(out, b^mask[i&3])
	}
	c.out = out
	_, err := c.conn.Write(out)
	return err
}

func (c *probeConn) Close() error { return c.conn.Close() }
