package ws

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
)

// outMsg is one queued message. A direct response is payload alone; a
// notification is payload (the result, encoded once for every subscriber)
// wrapped with the subscription id as it is written, so nothing is copied
// per subscriber. It is two pointers: a queue of 256 costs 4 KiB.
type outMsg struct {
	sub     *subscription
	payload *payload
}

// payload is an encoded message body, shared by every queue it is in.
type payload struct{ b []byte }

// conn is one WebSocket connection: a reader (the upgrade goroutine) and a
// writer draining a bounded queue. Nothing that publishes ever blocks on it:
// when the queue is full the connection is closed with a reason.
type conn struct {
	id     uint64
	ws     *websocket.Conn
	hub    *Hub
	queue  chan outMsg
	closed chan struct{}
	once   sync.Once
	reason atomic.Pointer[closeReason]

	writeDeadline time.Time // writer goroutine only

	mu   sync.Mutex // guards subs (the reader adds and removes, shards read)
	subs map[string]*subscription
}

type closeReason struct {
	code int
	text string
}

var (
	notifyPrefix = []byte(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"`)
	notifyMiddle = []byte(`","result":`)
	notifySuffix = []byte(`}}`)
)

// send queues m; when the queue is full the connection is too slow and is
// closed. It never blocks.
func (c *conn) send(m outMsg) bool {
	select {
	case <-c.closed:
		return false
	default:
	}
	select {
	case c.queue <- m:
		return true
	default:
		c.hub.metrics.slowDropped.Add(1)
		c.close(websocket.ClosePolicyViolation, "subscriber too slow: send queue full")
		return false
	}
}

// close ends the connection once, telling the writer why.
func (c *conn) close(code int, text string) {
	c.once.Do(func() {
		c.reason.Store(&closeReason{code: code, text: text})
		close(c.closed)
	})
}

// writeLoop writes queued messages and pings until the connection closes.
func (c *conn) writeLoop() {
	ping := time.NewTicker(c.hub.cfg.PingInterval)
	defer ping.Stop()
	for {
		select {
		case m := <-c.queue:
			if err := c.write(m); err != nil {
				c.close(websocket.CloseAbnormalClosure, "")
				c.ws.Close()
				return
			}
		case <-ping.C:
			deadline := time.Now().Add(c.hub.cfg.WriteTimeout)
			if err := c.ws.WriteControl(websocket.PingMessage, nil, deadline); err != nil {
				c.close(websocket.CloseAbnormalClosure, "")
				c.ws.Close()
				return
			}
		case <-c.closed:
			if r := c.reason.Load(); r != nil && r.code != websocket.CloseAbnormalClosure {
				msg := websocket.FormatCloseMessage(r.code, r.text)
				c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
			}
			c.ws.Close()
			return
		}
	}
}

func (c *conn) write(m outMsg) error {
	// Moving the deadline costs a timer update; doing it at most once a
	// second still bounds a stuck write by WriteTimeout plus a second.
	if now := time.Now(); c.writeDeadline.Sub(now) < c.hub.cfg.WriteTimeout-time.Second {
		c.writeDeadline = now.Add(c.hub.cfg.WriteTimeout)
		c.ws.SetWriteDeadline(c.writeDeadline)
	}
	w, err := c.ws.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	if m.sub != nil {
		w.Write(notifyPrefix)
		w.Write(m.sub.id)
		w.Write(notifyMiddle)
		w.Write(m.payload.b)
		w.Write(notifySuffix)
	} else {
		w.Write(m.payload.b)
	}
	return w.Close()
}

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
			if errors.Is(err, websocket.ErrReadLimit) {
				c.close(websocket.CloseMessageTooBig, "message too large")
			} else if errors.As(err, &ce) {
				c.close(websocket.CloseNormalClosure, "")
			} else {
				c.close(websocket.CloseAbnormalClosure, "")
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
