package ws

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/peer"
)

// outMsg is one message to send. A direct response is payload alone; a
// notification is payload (the result, encoded once for every subscriber)
// wrapped with the subscription id as it is framed.
type outMsg struct {
	sub     *subscription
	payload *payload
}

// payload is an encoded message body, shared by every connection it goes to.
type payload struct {
	b []byte
	// z is a notification's b deflated, made by the first connection
	// that negotiated compression (deflatedResult).
	z atomic.Pointer[[]byte]
}

// conn is one WebSocket connection. The library reads (on the upgrade
// goroutine); writes are framed here and go straight to the socket from
// whichever goroutine sends (a broadcaster shard, the reader answering a
// call) with one non-blocking write. Only when the socket cannot take them
// do frames wait in the connection's buffer for a flusher goroutine, and a
// connection with SendQueue messages waiting that have not started to be
// written is closed as too slow. A close drops those: the close frame goes
// out right after the frame on the wire. No goroutine exists per idle
// connection besides its reader.
type conn struct {
	id         uint64
	peer       *peer.Peer // the client, for its rate limits and hang-up
	view       rpc.View   // the semantics of its JSON-RPC calls (/ws or /preconf/ws)
	shardIndex int        // position in its shard's slice, guarded by the shard's lock
	ws         *websocket.Conn
	hub        *Hub
	net        net.Conn        // the socket, for blocking writes and close
	raw        syscall.RawConn // the socket's fd for non-blocking writes; nil with TLS
	deflate    bool            // the client negotiated permessage-deflate
	// writeFD is c.writeOnce bound once: a closure per write would be an
	// allocation per notification per subscriber.
	writeFD func(fd uintptr) bool

	wmu sync.Mutex // guards the write state below
	buf []byte     // framed bytes; buf[sent:] are not yet written
	// sent is how much of buf is written; above zero only while a
	// flusher runs. The flusher writes buf in place, as the socket takes
	// it, so that a close still sees which frames have not started.
	sent int
	// rest is how much of buf[sent:] finishes frames already started: a
	// frame partly on the wire must be finished before any other byte,
	// close frame included, or the stream is garbled.
	rest     int
	queued   int           // data messages in buf not yet started
	written  int           // what writeOnce wrote
	errno    syscall.Errno // the flusher's failed send
	flushing bool          // a flusher goroutine owns the socket's writes
	closing  bool          // a close frame is queued: nothing more is accepted
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
	// The library must not write on its own: it would interleave with our
	// frames. Pongs go through sendFrame; readLoop answers a close. (It
	// still writes a close frame itself on a protocol error; see
	// readFailed.)
	ws.SetPingHandler(func(data string) error {
		c.sendFrame(opPong, []byte(data))
		return nil
	})
	ws.SetCloseHandler(func(int, string) error { return nil })
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

// frameLen is the length, header included, of the frame b starts with
// (one appendFrameHeader wrote).
func frameLen(b []byte) int {
	switch n := int(b[1]); n {
	case 126:
		return 4 + int(binary.BigEndian.Uint16(b[2:]))
	case 127:
		return 10 + int(binary.BigEndian.Uint64(b[2:]))
	default:
		return 2 + n
	}
}

// send frames m and writes or queues it; false when the connection is
// closing or was just closed as too slow. It never blocks on the socket.
func (c *conn) send(m outMsg) bool {
	// Deflated before the lock: a large answer takes milliseconds, which
	// a shard delivering to this connection would otherwise wait out.
	var z []byte
	if c.deflate && len(m.payload.b) >= minDeflate {
		if m.sub != nil {
			z = m.payload.deflatedResult(&c.hub.deflater)
		} else {
			z = c.hub.deflater.deflate(m.payload.b)
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closing {
		return false
	}
	if c.queued >= c.hub.cfg.SendQueue {
		c.hub.metrics.slowDropped.Add(1)
		c.closeLocked(websocket.ClosePolicyViolation, c.hub.cfg.slowReason())
		return false
	}
	switch {
	case m.sub != nil && z != nil:
		c.appendDeflatedNotification(m.sub, z)
	case m.sub != nil:
		n := len(notifyPrefix) + len(m.sub.id) + len(notifyMiddle) + len(m.payload.b) + len(notifySuffix)
		c.buf = appendFrameHeader(c.buf, opText, n)
		c.buf = append(c.buf, notifyPrefix...)
		c.buf = append(c.buf, m.sub.id...)
		c.buf = append(c.buf, notifyMiddle...)
		c.buf = append(c.buf, m.payload.b...)
		c.buf = append(c.buf, notifySuffix...)
	case z != nil:
		c.buf = appendFrameHeader(c.buf, opText|rsv1, len(z))
		c.buf = append(c.buf, z...)
	default:
		c.buf = appendFrameHeader(c.buf, opText, len(m.payload.b))
		c.buf = append(c.buf, m.payload.b...)
	}
	c.queued++
	c.flushLocked()
	return true
}

// appendDeflatedNotification frames a notification to sub whose result,
// with the envelope's end, deflated to z: the envelope's start as a stored
// block, then z, shared by every subscriber.
func (c *conn) appendDeflatedNotification(sub *subscription, z []byte) {
	head := len(notifyPrefix) + len(sub.id) + len(notifyMiddle)
	c.buf = appendFrameHeader(c.buf, opText|rsv1, storedHeader+head+len(z))
	c.buf = appendStoredHeader(c.buf, head) // a subscription id is short
	c.buf = append(c.buf, notifyPrefix...)
	c.buf = append(c.buf, sub.id...)
	c.buf = append(c.buf, notifyMiddle...)
	c.buf = append(c.buf, z...)
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
// is written, or when the write deadline passes first.
func (c *conn) close(code int, reason string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.closeLocked(code, reason)
}

// closeLocked drops what has not started to be written and queues the
// close frame in its place: a client that reads slowly gets the close as
// the next frame after the one it is in, not after the backlog that got it
// closed. A code of 0 queues no frame (the library sent one). From here
// the client has WriteTimeout to take the close.
func (c *conn) closeLocked(code int, reason string) {
	if c.closing {
		return
	}
	c.closing = true
	close(c.closed)
	c.buf, c.queued = c.buf[:c.sent+c.rest], 0
	if c.rest == 0 {
		c.buf, c.sent = c.buf[:0], 0
	}
	if code != 0 {
		msg := websocket.FormatCloseMessage(code, reason)
		c.buf = appendFrameHeader(c.buf, opClose, len(msg))
		c.buf = append(c.buf, msg...)
	}
	c.net.SetWriteDeadline(time.Now().Add(c.hub.cfg.WriteTimeout))
	c.flushLocked()
	if !c.flushing {
		c.net.Close()
	}
}

// flushLocked writes what it can without blocking; the rest waits for a
// flusher goroutine. Without a flusher the buffer holds only what was just
// queued.
func (c *conn) flushLocked() {
	if c.flushing || len(c.buf) == 0 {
		return
	}
	c.consume(c.tryWrite())
	if len(c.buf) > 0 {
		c.flushing = true
		go c.flusher()
	}
}

// consume marks n more bytes of the buffer written, counts the frames
// they started and notes how much of the last one is left.
func (c *conn) consume(n int) {
	end := c.sent + c.rest // where the next unstarted frame begins
	c.sent += n
	if c.sent == len(c.buf) {
		c.buf, c.sent, c.rest, c.queued = c.buf[:0], 0, 0, 0
		if cap(c.buf) > 64<<10 {
			c.buf = nil // a burst is over: give the memory back
		}
		return
	}
	for end < c.sent {
		end += c.start(end)
	}
	c.rest = end - c.sent
	if c.sent > len(c.buf)/2 {
		// More written than left: move the rest down, so a subscriber
		// that never quite catches up does not grow the buffer forever.
		c.buf = c.buf[:copy(c.buf, c.buf[c.sent:])]
		c.sent = 0
	}
}

// start counts the frame at buf[i] as started and returns its length.
func (c *conn) start(i int) int {
	if c.buf[i]&0x0f == opText {
		c.queued--
	}
	return frameLen(c.buf[i:])
}

// tryWrite makes one non-blocking write of c.buf; it returns how much
// was written. The caller holds wmu, and no flusher runs.
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
	c.written, _ = c.sendBuf(fd)
	return true // one attempt only
}

// sendBuf is one non-blocking send(2) of what is left of c.buf.
func (c *conn) sendBuf(fd uintptr) (int, syscall.Errno) {
	b := c.buf[c.sent:]
	if len(b) == 0 {
		return 0, 0
	}
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, fd,
			uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
			syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
		if errno != syscall.EINTR {
			if errno != 0 {
				n = 0
			}
			return int(n), errno
		}
	}
}

// flusher writes the buffer as the socket takes it until it is empty,
// then ends the connection if it is closing. Until it closes, the client
// has WriteTimeout to take each next part; once it closes, WriteTimeout
// from then (closeLocked) for the lot.
func (c *conn) flusher() {
	for {
		c.wmu.Lock()
		if len(c.buf) == 0 {
			c.flushing = false
			closing := c.closing
			c.wmu.Unlock()
			if closing {
				c.net.Close()
			}
			return
		}
		if !c.closing {
			// Under wmu: a close setting its own deadline meanwhile wins.
			c.net.SetWriteDeadline(time.Now().Add(c.hub.cfg.WriteTimeout))
		}
		c.wmu.Unlock()
		if err := c.writeSome(); err != nil {
			c.fail()
			return
		}
	}
}

// writeSome waits until the socket takes part of the buffer and writes
// it. Raw sockets are written in place under wmu, so that whatever has not
// gone yet can still be dropped by a close.
func (c *conn) writeSome() error {
	if c.raw == nil {
		return c.writeChunk()
	}
	if err := c.raw.Write(c.flushFD); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.errno != 0 {
		return c.errno
	}
	return nil
}

// flushFD is RawConn.Write's callback for the flusher: one non-blocking
// send; false asks it to wait until the socket is writable. It takes wmu
// while RawConn.Write holds the socket's write lock; nothing takes them
// the other way round while a flusher runs (tryWrite runs only without).
func (c *conn) flushFD(fd uintptr) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n, errno := c.sendBuf(fd)
	switch errno {
	case 0:
		c.consume(n)
		return true
	case syscall.EAGAIN:
		return false
	default:
		c.errno = errno
		return true
	}
}

// tlsRecord is the most a TLS record holds. The flusher hands the TLS
// conn whole frames up to this much at a time: it writes each record with
// a system call of its own anyway, and a close then waits behind one
// record at most.
const tlsRecord = 16 << 10

// writeChunk writes the next part of the buffer through the (TLS) conn
// with a blocking write. What it hands over is started: a close no longer
// drops it.
func (c *conn) writeChunk() error {
	c.wmu.Lock()
	for end := c.sent + c.rest; end < len(c.buf); {
		n := frameLen(c.buf[end:])
		if c.rest > 0 && c.rest+n > tlsRecord {
			break
		}
		c.start(end)
		c.rest += n
		end += n
	}
	chunk := c.buf[c.sent : c.sent+c.rest]
	c.wmu.Unlock()
	if _, err := c.net.Write(chunk); err != nil {
		return err
	}
	c.wmu.Lock()
	c.consume(len(chunk))
	c.wmu.Unlock()
	return nil
}

// fail ends a connection whose socket failed or whose client did not read
// within the write deadline: there is no way left to tell it why.
func (c *conn) fail() {
	c.wmu.Lock()
	c.flushing = false
	c.buf, c.sent, c.rest, c.queued = nil, 0, 0, 0
	if !c.closing {
		c.closing = true
		close(c.closed)
	}
	c.wmu.Unlock()
	c.net.Close()
}

// ping keeps the connection alive; the broadcaster calls it periodically.
func (c *conn) ping() { c.sendFrame(opPing, nil) }

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
