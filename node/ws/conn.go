package ws

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/fasthttp/websocket"
)

// outMsg is one message to send. A direct response is payload alone; a
// notification is payload (the result, encoded once for every subscriber)
// wrapped with the subscription id as it is framed.
type outMsg struct {
	sub     *subscription
	payload *payload
}

// payload is an encoded message body, shared by every connection it goes to.
type payload struct{ b []byte }

// conn is one WebSocket connection. The library reads (on the upgrade
// goroutine); writes are framed here and go straight to the socket from
// whichever goroutine sends (a broadcaster shard, the reader answering a
// call) with one non-blocking write. Only when the socket cannot take them
// do frames wait in the connection's buffer for a flusher goroutine, and a
// connection with more than SendQueue messages waiting is closed as too
// slow. No goroutine exists per idle connection besides its reader.
type conn struct {
	id         uint64
	shardIndex int // position in its shard's slice, guarded by the shard's lock
	ws         *websocket.Conn
	hub        *Hub
	net        net.Conn        // the socket, for blocking writes and close
	raw        syscall.RawConn // the socket's fd for non-blocking writes; nil with TLS
	// writeFD is c.writeOnce bound once: a closure per write would be an
	// allocation per notification per subscriber.
	writeFD func(fd uintptr) bool

	wmu      sync.Mutex // guards the write state below
	buf      []byte     // framed bytes not yet written
	written  int        // what writeOnce wrote of buf
	queued   int        // messages in buf
	flushing bool       // a flusher goroutine owns the socket's writes
	closing  bool       // a close frame is queued: nothing more is accepted
	closed   chan struct{}

	mu sync.Mutex // guards subs (the reader adds and removes, shards read)
	// subs is a slice, not a map: shards walk it for every event, and a
	// connection holds few subscriptions (at most MaxSubs).
	subs []*subscription
}

var (
	notifyPrefix = []byte(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"`)
	notifyMiddle = []byte(`","result":`)
	notifySuffix = []byte(`}}`)
)

func newConn(h *Hub, ws *websocket.Conn) *conn {
	c := &conn{
		id:     h.nextID.Add(1),
		ws:     ws,
		hub:    h,
		closed: make(chan struct{}),
	}
	c.setSocket(ws.UnderlyingConn())
	// The library must never write on its own: it would interleave with
	// our frames. Pongs and close replies go through send.
	ws.SetPingHandler(func(data string) error {
		c.sendFrame(opPong, []byte(data))
		return nil
	})
	ws.SetCloseHandler(func(code int, text string) error {
		c.close(websocket.CloseNormalClosure, "")
		return nil
	})
	return c
}

// setSocket takes the connection's socket for writes: its fd when it has
// one (plain TCP), for non-blocking writes from any goroutine.
func (c *conn) setSocket(nc net.Conn) {
	if u, ok := nc.(interface{ UnsafeConn() net.Conn }); ok {
		nc = u.UnsafeConn() // fasthttp's hijack wrapper
	}
	c.net = nc
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw, c.writeFD = raw, c.writeOnce
		}
	}
}

const (
	opText  = 0x1
	opClose = 0x8
	opPing  = 0x9
	opPong  = 0xA
)

// appendFrameHeader appends an unmasked server frame header.
func appendFrameHeader(b []byte, op byte, n int) []byte {
	b = append(b, 0x80|op)
	switch {
	case n < 126:
		return append(b, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(b, 127), uint64(n))
	}
}

// send frames m and writes or queues it; false when the connection is
// closing or was just closed as too slow. It never blocks on the socket.
func (c *conn) send(m outMsg) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closing {
		return false
	}
	if c.queued >= c.hub.cfg.SendQueue {
		c.hub.metrics.slowDropped.Add(1)
		c.closeLocked(websocket.ClosePolicyViolation, "subscriber too slow: send queue full")
		return false
	}
	if m.sub != nil {
		n := len(notifyPrefix) + len(m.sub.id) + len(notifyMiddle) + len(m.payload.b) + len(notifySuffix)
		c.buf = appendFrameHeader(c.buf, opText, n)
		c.buf = append(c.buf, notifyPrefix...)
		c.buf = append(c.buf, m.sub.id...)
		c.buf = append(c.buf, notifyMiddle...)
		c.buf = append(c.buf, m.payload.b...)
		c.buf = append(c.buf, notifySuffix...)
	} else {
		c.buf = appendFrameHeader(c.buf, opText, len(m.payload.b))
		c.buf = append(c.buf, m.payload.b...)
	}
	c.queued++
	c.flushLocked()
	return true
}

// sendFrame queues a control frame (ping, pong).
func (c *conn) sendFrame(op byte, data []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closing {
		return
	}
	c.buf = appendFrameHeader(c.buf, op, len(data))
	c.buf = append(c.buf, data...)
	c.flushLocked()
}

// close queues a close frame saying why and ends the connection once it
// is written (or at once if the socket is stuck).
func (c *conn) close(code int, text string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.closeLocked(code, text)
}

func (c *conn) closeLocked(code int, text string) {
	if c.closing {
		return
	}
	c.closing = true
	close(c.closed)
	// The close frame goes after what is queued (which may begin inside a
	// partly written frame): a client that reads again gets it; one that
	// does not is cut off when the flusher's write deadline passes.
	msg := websocket.FormatCloseMessage(code, text)
	c.buf = appendFrameHeader(c.buf, opClose, len(msg))
	c.buf = append(c.buf, msg...)
	c.flushLocked()
	if !c.flushing {
		c.net.Close()
	}
}

// flushLocked writes what it can without blocking; the rest waits for a
// flusher goroutine.
func (c *conn) flushLocked() {
	if c.flushing || len(c.buf) == 0 {
		return
	}
	n := c.tryWrite()
	if n == len(c.buf) {
		c.buf, c.queued = c.buf[:0], 0
		if cap(c.buf) > 64<<10 {
			c.buf = nil // a burst is over: give the memory back
		}
		return
	}
	c.buf = c.buf[:copy(c.buf, c.buf[n:])]
	c.flushing = true
	go c.flusher()
}

// tryWrite makes one non-blocking write of c.buf; it returns how much
// was written. The caller holds wmu.
func (c *conn) tryWrite() int {
	if c.raw == nil {
		return 0 // TLS: the flusher writes through the TLS conn
	}
	c.written = 0
	c.raw.Write(c.writeFD)
	return c.written
}

// writeOnce is one send(2) that never blocks. It is a raw syscall (the
// runtime is not told): a non-blocking send does not wait, and telling the
// runtime costs more than the send's user-space part. Fanning a head out
// to 5,000 sockets is 5,000 sends; announced, each lets the runtime's
// monitor take the P away mid-send and start another thread, and keeps the
// monitor polling every 20 µs (a profile of a fan-out put 2% of the server
// in the monitor's sleeps alone). send instead of write skips the VFS layer.
func (c *conn) writeOnce(fd uintptr) bool {
	if len(c.buf) == 0 {
		return true
	}
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd,
			uintptr(unsafe.Pointer(&c.buf[0])), uintptr(len(c.buf)),
			syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno == 0 {
			c.written = int(n)
		}
		return true // one attempt only
	}
}

// flusher writes the buffer with blocking writes until it is empty.
func (c *conn) flusher() {
	var out []byte
	for {
		c.wmu.Lock()
		if len(c.buf) == 0 {
			c.flushing = false
			c.queued = 0
			closing := c.closing
			c.wmu.Unlock()
			if closing {
				c.net.Close()
			}
			return
		}
		out, c.buf = c.buf, out[:0]
		c.wmu.Unlock()
		c.net.SetWriteDeadline(time.Now().Add(c.hub.cfg.WriteTimeout))
		if _, err := c.net.Write(out); err != nil {
			c.wmu.Lock()
			c.flushing, c.buf = false, nil
			if !c.closing {
				c.closing = true
				close(c.closed)
			}
			c.wmu.Unlock()
			c.net.Close()
			return
		}
	}
}

// ping keeps the connection alive; the broadcaster calls it periodically.
func (c *conn) ping() { c.sendFrame(opPing, nil) }

// readLoop serves requests until the client goes away or the connection is
// closed; it runs on the upgrade goroutine.
func (c *conn) readLoop(ctx context.Context) {
	c.ws.SetReadLimit(c.hub.cfg.MessageLimit)
	c.ws.SetReadDeadline(time.Now().Add(c.hub.cfg.IdleTimeout))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(c.hub.cfg.IdleTimeout))
	})
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			switch {
			case errors.Is(err, websocket.ErrReadLimit):
				c.close(websocket.CloseMessageTooBig, "message too large")
			case errors.As(err, &ce):
				c.close(websocket.CloseNormalClosure, "")
			default:
				c.close(websocket.CloseGoingAway, "")
			}
			return
		}
		c.ws.SetReadDeadline(time.Now().Add(c.hub.cfg.IdleTimeout))
		if out := c.hub.handle(ctx, c, bytes.TrimSpace(msg)); len(out) > 0 {
			if !c.send(outMsg{payload: &payload{b: out}}) {
				return
			}
		}
		c.activate()
	}
}

// waitFlushed waits (bounded) until a flusher has written the close frame,
// so the upgrade handler does not return while it still writes.
func (c *conn) waitFlushed() {
	deadline := time.Now().Add(c.hub.cfg.WriteTimeout)
	for time.Now().Before(deadline) {
		c.wmu.Lock()
		busy := c.flushing
		c.wmu.Unlock()
		if !busy {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.net.Close()
}
