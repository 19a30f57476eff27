package ws

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/rpc"
)

type subKind uint8

const (
	kindNewHeads    subKind = iota + 1
	kindLogs                // sealed blocks' logs
	kindPendingTxs          // newPendingTransactions
	kindPendingLogs         // logs of pre-confirmed transactions
	kindFlashblocks         // one notification per pending snapshot
	kindFlashTxs            // newFlashblockTransactions: hashes
	kindFlashTxFull         // newFlashblockTransactions: full objects, all or filtered (flashtx.go)
)

var kinds = map[string]subKind{
	"newHeads":               kindNewHeads,
	"logs":                   kindLogs,
	"newPendingTransactions": kindPendingTxs,
	"pendingLogs":            kindPendingLogs,
	"newFlashblocks":         kindFlashblocks,
	// A hash subscription until its parameter asks for more.
	"newFlashblockTransactions": kindFlashTxs,
}

// subscription is one eth_subscribe of a connection.
type subscription struct {
	id     []byte // "0x" + 32 hex digits: 128 unpredictable bits
	kind   subKind
	filter *rpc.LogFilter // logs, pendingLogs, newFlashblockTransactions with a filter
	full   bool           // newPendingTransactions with full objects
	// active is set once the eth_subscribe response is queued, so that no
	// notification can overtake it.
	active bool

	// A resumed subscription (resume.go): where it resumes, whether its
	// history is still being sent (live notifications then wait in
	// backlog), and the last notification it was sent, by which a block
	// sent twice is dropped.
	resumeFrom *resumePoint
	resuming   bool
	backlog    []backlogged
	lastNumber uint64
	lastIndex  uint64
	wholeBlock bool // logs: every log of lastNumber was sent
}

// after reports whether the notification keyed (number, index) comes
// after what sub was sent: a newHeads notification is keyed by its block,
// a log by its block and index in it, a flashblock by its block and index.
func (s *subscription) after(number, index uint64) bool {
	if number != s.lastNumber {
		return number > s.lastNumber
	}
	return s.kind != kindNewHeads && !s.wholeBlock && index > s.lastIndex
}

// sent records that sub was sent the notification keyed (number, index).
func (s *subscription) sent(number, index uint64) {
	s.lastNumber, s.lastIndex, s.wholeBlock = number, index, false
}

// handle answers one incoming message: eth_subscribe and eth_unsubscribe
// here, every other method through the RPC server's handlers.
// Every message is charged to the client's rate limits as an HTTP request
// would be.
func (h *Hub) handle(c *conn, msg []byte) []byte {
	out, _ := h.rpc.HandleFrom(c.peer, c.view, msg, nil, func(req *codec.Request, dst []byte) ([]byte, bool) {
		switch string(req.Method) {
		case "eth_subscribe":
			return h.subscribe(c, req, dst), true
		case "eth_unsubscribe":
			return h.unsubscribe(c, req, dst), true
		}
		return nil, false
	})
	return out
}

// activate makes the subscriptions created by the message just answered
// live, and starts sending resumed ones their history; it runs after the
// answer is queued.
func (c *conn) activate() {
	c.mu.Lock()
	for _, s := range c.subs {
		if !s.active && s.resuming {
			c.hub.wg.Add(1)
			go c.hub.resume(c, s)
		}
		s.active = true
	}
	c.mu.Unlock()
}

func (h *Hub) subscribe(c *conn, req *codec.Request, dst []byte) []byte {
	sub, err := h.parseSubscription(req.Params)
	if err != nil {
		return codec.AppendError(dst, req.ID, err)
	}
	var b [16]byte
	rand.Read(b[:])
	sub.id = append([]byte("0x"), hex.EncodeToString(b[:])...)

	c.mu.Lock()
	if len(c.subs) >= h.cfg.MaxSubs {
		c.mu.Unlock()
		return codec.AppendError(dst, req.ID, &codec.Error{Code: codec.CodeLimitExceeded,
			Message: fmt.Sprintf("too many subscriptions on this connection (limit %d)", h.cfg.MaxSubs)})
	}
	c.subs = append(c.subs, sub)
	c.mu.Unlock()
	h.metrics.subscribed(sub.kind, 1)

	dst = codec.AppendResultStart(dst, req.ID)
	dst = append(append(append(dst, '"'), sub.id...), '"')
	return codec.AppendResultEnd(dst)
}

func (h *Hub) parseSubscription(params []byte) (*subscription, *codec.Error) {
	it, err := codec.Array(params)
	if params == nil || err != nil || !it.Next() {
		return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "expected the subscription kind as the first parameter"}
	}
	name := it.Value()
	if len(name) < 2 || name[0] != '"' {
		return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 0: subscription kind must be a string"}
	}
	kind, ok := kinds[string(name[1:len(name)-1])]
	if !ok {
		return nil, &codec.Error{Code: codec.CodeMethodNotFound, Message: fmt.Sprintf("no %s subscription in eth namespace", name)}
	}
	sub := &subscription{kind: kind}
	var arg []byte
	if it.Next() {
		arg = it.Value()
		if it.Next() {
			return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "too many arguments, want at most 2"}
		}
	}
	if it.Err() != nil {
		return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: it.Err().Error()}
	}
	if err := h.parseResumeOf(sub, arg); err != nil {
		return nil, err
	}
	if sub.resumeFrom != nil && kind != kindLogs {
		arg = nil // the resume point is the argument's only member
	}
	switch kind {
	case kindLogs, kindPendingLogs:
		filterJSON := arg
		if filterJSON == nil || string(filterJSON) == "null" {
			filterJSON = []byte("{}")
		}
		filter, err := rpc.ParseLogFilter(filterJSON)
		if err != nil {
			return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: " + err.Error()}
		}
		sub.filter = filter
	case kindFlashTxs:
		if err := parseFlashTxArg(sub, arg); err != nil {
			return nil, err
		}
	case kindPendingTxs:
		switch string(arg) {
		case "", "null", "false":
		case "true":
			sub.full = true
		default:
			return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: expected a boolean"}
		}
	default:
		if arg != nil && string(arg) != "null" {
			return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "too many arguments, want at most 1"}
		}
	}
	return sub, nil
}

func (h *Hub) unsubscribe(c *conn, req *codec.Request, dst []byte) []byte {
	it, err := codec.Array(req.Params)
	if req.Params == nil || err != nil || !it.Next() {
		return codec.AppendError(dst, req.ID, &codec.Error{Code: codec.CodeInvalidParams, Message: "missing value for required argument 0"})
	}
	id := it.Value()
	if len(id) < 2 || id[0] != '"' {
		return codec.AppendError(dst, req.ID, &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 0: subscription id must be a string"})
	}
	c.mu.Lock()
	removed := c.removeSub(id[1 : len(id)-1])
	c.mu.Unlock()
	if removed == nil {
		return codec.AppendError(dst, req.ID, &codec.Error{Code: codec.CodeServer, Message: "subscription not found"})
	}
	h.metrics.subscribed(removed.kind, -1)
	dst = codec.AppendResultStart(dst, req.ID)
	dst = codec.AppendBool(dst, true)
	return codec.AppendResultEnd(dst)
}

// removeSub deletes the subscription with this id and returns it (nil when
// there is none); c.mu must be held.
func (c *conn) removeSub(id []byte) *subscription {
	for i, s := range c.subs {
		if string(s.id) == string(id) {
			c.subs = append(c.subs[:i], c.subs[i+1:]...)
			return s
		}
	}
	return nil
}
