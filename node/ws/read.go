package ws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/fasthttp/websocket"
)

// errTooLarge is a message over Config.MessageLimit.
var errTooLarge = errors.New("message too large")

// readLoop serves requests until the client goes away or the connection is
// closed; it runs on the upgrade goroutine and returns with the connection
// closing.
func (c *conn) readLoop() {
	idle := c.hub.cfg.IdleTimeout
	c.ws.SetReadDeadline(time.Now().Add(idle))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(idle))
	})
	for {
		typ, msg, err := c.readMessage()
		if err != nil {
			c.readFailed(err)
			return
		}
		// RFC 6455 §8.1. The library checks only close frames' reasons;
		// a text message split into frames is checked whole, as a
		// character may straddle two.
		if typ == websocket.TextMessage && !utf8.Valid(msg) {
			c.close(websocket.CloseInvalidFramePayloadData, "text message is not valid UTF-8")
			return
		}
		c.ws.SetReadDeadline(time.Now().Add(idle))
		if out := c.hub.handle(c, bytes.TrimSpace(msg)); len(out) > 0 {
			if !c.send(outMsg{payload: &payload{b: out}}) {
				return
			}
		}
		c.activate()
	}
}

// readMessage reads the next message whole, up to MessageLimit. The limit
// is kept here, not with the library's SetReadLimit: over that, the
// library writes a close frame of its own, without a reason and straight
// to the socket, where it can land inside a frame of ours.
func (c *conn) readMessage() (int, []byte, error) {
	typ, r, err := c.ws.NextReader()
	if err != nil {
		return 0, nil, err
	}
	limit := c.hub.cfg.MessageLimit
	msg, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(msg)) > limit {
		err = errTooLarge
	}
	return typ, msg, err
}

// readFailed closes the connection after a failed read, saying why.
func (c *conn) readFailed(err error) {
	var ce *websocket.CloseError
	var ne net.Error
	isClose := errors.As(err, &ce)
	isNet := errors.As(err, &ne)
	switch {
	case errors.Is(err, errTooLarge), errors.Is(err, websocket.ErrReadLimit):
		// ErrReadLimit: a length the library cannot even hold.
		c.close(websocket.CloseMessageTooBig, c.hub.cfg.tooLargeReason())
	case isClose && ce.Code != websocket.CloseAbnormalClosure:
		c.close(websocket.CloseNormalClosure, "closing as the client asked")
	case isNet && ne.Timeout():
		c.close(websocket.CloseGoingAway, c.hub.cfg.idleReason())
	case isClose, isNet, errors.Is(err, io.EOF):
		// The client went away without a close frame (the library reports
		// that as an abnormal closure), or the socket was closed here: the
		// frame is for a client that still reads after a half close.
		c.close(websocket.CloseGoingAway, "connection lost without a close frame")
	default:
		// A protocol violation (reserved bits, bad opcode, unmasked or
		// oversized control frame, bad close code). The library has
		// already written a close frame itself, 1002 with what it found;
		// it cannot be kept from it, and a second one would be another
		// violation, so none is queued.
		c.close(0, "")
	}
}

// The close reasons that depend on the configuration. A close frame's
// reason must fit in 123 bytes; these do for any value.

func (cfg *Config) tooLargeReason() string {
	return fmt.Sprintf("message too large: limit %d bytes; send smaller requests or batches", cfg.MessageLimit)
}

func (cfg *Config) idleReason() string {
	return "no message or pong for " + strconv.FormatFloat(cfg.IdleTimeout.Seconds(), 'f', -1, 64) + "s"
}

func (cfg *Config) slowReason() string {
	return fmt.Sprintf("subscriber too slow: %d messages queued unread; read faster or subscribe to less", cfg.SendQueue)
}
