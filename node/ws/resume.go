package ws

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/seqlog"
)

// Resumable subscriptions. A client that reconnects names the last
// notification it got, by the fields that identify it:
//
//	["newHeads", {"resumeAfter": {"number": "0x10"}}]
//	["logs", {"address": ..., "topics": ..., "resumeAfter": {"blockNumber": "0x10", "logIndex": "0x3"}}]
//	["newFlashblocks", {"resumeAfter": {"number": "0x10", "index": "0x3"}}]
//
// and gets every notification after it, then the live stream, with no gap
// and no duplicate. Missed heads and logs are of sealed blocks, read from
// the chain's database, which holds every block the broadcaster announced
// before it announces it (the sequencer's log holds the same blocks). Missed
// flashblocks are read from the sequencer's log, the one record of the
// pre-confirmations, which holds each before it is announced.
//
// The handover: the subscription exists from its answer on, and while the
// history is sent its live notifications wait in a backlog. Every
// notification has a key (its block, and its log's or flashblock's index
// in it) that grows along the stream; the history goroutine sends from the
// resume point until it has sent the last key the broadcaster announced,
// then, under the connection's lock that every delivery takes, sends the
// backlog's notifications past what it sent and makes the subscription
// live. A delivery the history already sent is dropped by its key.

// resumePoint is where a subscription resumes: after block number, and
// after the log or flashblock index of it (for logs, all of its logs when
// hasIndex is false).
type resumePoint struct {
	number   uint64
	index    uint64
	hasIndex bool
}

// backlogged is a notification with its key.
type backlogged struct {
	number, index uint64
	payload       *payload
}

type rawResumePoint struct {
	Number      *hexutil.Uint64 `json:"number"`
	Index       *hexutil.Uint64 `json:"index"`
	BlockNumber *hexutil.Uint64 `json:"blockNumber"`
	LogIndex    *hexutil.Uint64 `json:"logIndex"`
}

// parseResume reads the resumeAfter member of a subscription's argument;
// nil when there is none.
func parseResume(kind subKind, arg []byte) (*resumePoint, *codec.Error) {
	if len(arg) == 0 || arg[0] != '{' {
		return nil, nil
	}
	var in struct {
		ResumeAfter *rawResumePoint `json:"resumeAfter"`
	}
	if err := json.Unmarshal(arg, &in); err != nil {
		return nil, &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: " + err.Error()}
	}
	r := in.ResumeAfter
	if r == nil {
		return nil, nil
	}
	bad := func(msg string) *codec.Error {
		return &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: resumeAfter: " + msg}
	}
	switch kind {
	case kindNewHeads:
		if r.Number == nil || r.Index != nil || r.BlockNumber != nil || r.LogIndex != nil {
			return nil, bad(`a newHeads subscription resumes after a head: {"number": "0x…"}`)
		}
		return &resumePoint{number: uint64(*r.Number)}, nil
	case kindFlashblocks:
		if r.Number == nil || r.Index == nil || r.BlockNumber != nil || r.LogIndex != nil {
			return nil, bad(`a newFlashblocks subscription resumes after a flashblock: {"number": "0x…", "index": "0x…"}`)
		}
		return &resumePoint{number: uint64(*r.Number), index: uint64(*r.Index), hasIndex: true}, nil
	case kindLogs:
		if r.BlockNumber == nil || r.Number != nil || r.Index != nil {
			return nil, bad(`a logs subscription resumes after a log: {"blockNumber": "0x…", "logIndex": "0x…"} (without logIndex: after the whole block)`)
		}
		p := &resumePoint{number: uint64(*r.BlockNumber)}
		if r.LogIndex != nil {
			p.index, p.hasIndex = uint64(*r.LogIndex), true
		}
		return p, nil
	default:
		return nil, bad("only newHeads, logs and newFlashblocks subscriptions resume")
	}
}

// parseResumeOf sets sub up to resume where its argument says, if it does.
func (h *Hub) parseResumeOf(sub *subscription, arg []byte) *codec.Error {
	p, err := parseResume(sub.kind, arg)
	if err != nil || p == nil {
		return err
	}
	if err := h.checkResume(sub.kind, p); err != nil {
		return err
	}
	sub.resumeFrom, sub.resuming = p, true
	sub.lastNumber, sub.lastIndex, sub.wholeBlock = p.number, p.index, !p.hasIndex
	return nil
}

// checkResume refuses a resume point the node cannot serve.
func (h *Hub) checkResume(kind subKind, p *resumePoint) *codec.Error {
	head := h.lastSealed.Load()
	last, _ := h.announced(kind)
	switch {
	case kind == kindFlashblocks && h.preconfs == nil:
		return &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: resumeAfter: this node keeps no log of pre-confirmations (block production is off)"}
	case p.number > last:
		return &codec.Error{Code: codec.CodeInvalidParams, Message: fmt.Sprintf(
			"invalid argument 1: resumeAfter: block %d is past the last one announced, %d", p.number, last)}
	case p.number < head && head-p.number > h.cfg.ResumeBlocks:
		return &codec.Error{Code: codec.CodeInvalidParams, Message: fmt.Sprintf(
			"invalid argument 1: resumeAfter: block %d is %d blocks behind the head %d; a subscription resumes at most %d blocks back (--ws.resume.blocks): subscribe without resumeAfter and read the rest with eth_getLogs or eth_getBlockByNumber",
			p.number, head-p.number, head, h.cfg.ResumeBlocks)}
	}
	return nil
}

// resume sends sub the notifications after its resume point, then makes it
// live. It runs on a goroutine of its own, started once the subscription's
// answer is queued, and ends with the subscription live, unsubscribed, or
// the connection closing.
func (h *Hub) resume(c *conn, sub *subscription) {
	defer h.wg.Done()
	select {
	case h.resumes <- struct{}{}:
		defer func() { <-h.resumes }()
	case <-c.closed:
		return
	}
	if sub.kind == kindFlashblocks {
		h.resumeFlashblocks(c, sub)
		return
	}
	next := sub.resumeFrom.number + 1
	if sub.resumeFrom.hasIndex {
		next-- // the rest of a block's logs
	}
	for ; !c.catchUp(sub); next++ {
		var notes []backlogged
		switch sub.kind {
		case kindNewHeads:
			notes = h.headAt(next)
		case kindLogs:
			notes = h.logsAt(next, sub)
		}
		if !c.sendHistory(sub, notes) || !c.sentBlock(sub, next) {
			return
		}
	}
}

// resumeFlashblocks sends sub the flashblocks after its resume point from
// the sequencer's log, reading on until it has sent the last one
// announced.
func (h *Hub) resumeFlashblocks(c *conn, sub *subscription) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	last := flashKey{number: sub.resumeFrom.number, index: sub.resumeFrom.index}
	for !c.catchUp(sub) {
		progressed := false
		for p, err := range h.preconfs.Preconfirmations(ctx, last.number) {
			if err != nil {
				c.close(websocket.CloseInternalServerErr, fmt.Sprintf("cannot resume newFlashblocks from block %d: %v", last.number, err))
				return
			}
			key := flashKey{number: p.Opened.Number, index: p.Index}
			if !key.after(last) {
				continue // sent already: each round reads from the opening of the last block sent
			}
			note := backlogged{number: key.number, index: key.index, payload: mustJSON(loggedFlashblock(p))}
			if !c.sendHistory(sub, []backlogged{note}) {
				return
			}
			last, progressed = key, true
		}
		if !progressed {
			// Never expected (the log holds a pre-confirmation before it
			// is announced): not a reason to spin.
			select {
			case <-c.closed:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// catchUp makes sub live once its history has sent the last notification
// the broadcaster announced; true when the history is over, live or not.
func (c *conn) catchUp(sub *subscription) bool {
	number, index := c.hub.announced(sub.kind)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.holds(sub) {
		return true
	}
	if sub.after(number, index) {
		return false
	}
	for _, b := range sub.backlog {
		if !sub.after(b.number, b.index) {
			continue
		}
		sub.sent(b.number, b.index)
		if !c.send(outMsg{sub: sub, payload: b.payload}) {
			return true
		}
	}
	sub.backlog, sub.resuming = nil, false
	return true
}

// announced is the key of the last notification of kind the broadcaster
// announced: a head, a block's last log (whatever its index), or a
// flashblock.
func (h *Hub) announced(kind subKind) (number, index uint64) {
	switch kind {
	case kindFlashblocks:
		if k := h.lastFlash.Load(); k != nil {
			return k.number, k.index
		}
		return 0, 0
	case kindLogs:
		return h.lastSealed.Load(), math.MaxUint64
	}
	return h.lastSealed.Load(), 0
}

// holds reports whether sub is still one of c's subscriptions; c.mu must
// be held.
func (c *conn) holds(sub *subscription) bool {
	for _, s := range c.subs {
		if s == sub {
			return true
		}
	}
	return false
}

// sendHistory sends notes to sub, each after what it was sent, waiting
// for room in the connection's queue rather than overflowing it; false
// when the connection or the subscription is gone.
func (c *conn) sendHistory(sub *subscription, notes []backlogged) bool {
	for _, n := range notes {
		if !c.waitRoom() {
			return false
		}
		c.mu.Lock()
		ok := c.holds(sub)
		if ok && sub.after(n.number, n.index) {
			sub.sent(n.number, n.index)
			ok = c.send(outMsg{sub: sub, payload: n.payload})
		}
		c.mu.Unlock()
		if !ok {
			return false
		}
	}
	return true
}

// sentBlock records that sub was sent every notification of block number
// (heads, logs); false when the subscription is gone.
func (c *conn) sentBlock(sub *subscription, number uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if number >= sub.lastNumber {
		sub.lastNumber, sub.lastIndex, sub.wholeBlock = number, 0, true
	}
	return c.holds(sub)
}

// waitRoom waits until the connection's queue is at most half full: the
// history may be long, and a subscriber that reads it is not too slow.
// False when the connection is closing.
func (c *conn) waitRoom() bool {
	for {
		c.wmu.Lock()
		queued, closing := c.queued, c.closing
		c.wmu.Unlock()
		switch {
		case closing:
			return false
		case queued <= c.hub.cfg.SendQueue/2:
			return true
		}
		select {
		case <-c.closed:
			return false
		case <-time.After(time.Millisecond):
		}
	}
}

// headAt is block number's newHeads notification, as the broadcaster
// encodes it.
func (h *Hub) headAt(number uint64) []backlogged {
	header := h.chain.BlockChain().GetHeaderByNumber(number)
	if header == nil {
		return nil
	}
	return []backlogged{{number: number, payload: mustJSON(rpc.MarshalHeader(header))}}
}

// logsAt is block number's logs that sub's filter matches, as the
// broadcaster encodes them.
func (h *Hub) logsAt(number uint64, sub *subscription) []backlogged {
	bc := h.chain.BlockChain()
	hash := bc.GetCanonicalHash(number)
	var notes []backlogged
	for _, l := range encodeLogs(bc.GetReceiptsByHash(hash), nil) {
		if sub.filter.Matches(l.log) {
			notes = append(notes, backlogged{number: number, index: uint64(l.log.Index), payload: l.json})
		}
	}
	return notes
}

// loggedFlashblock is the newFlashblocks notification of a
// pre-confirmation the log holds, as the broadcaster encoded it live.
func loggedFlashblock(p seqlog.Preconfirmation) flashblockResult {
	f := flashblockResult{
		Number:       hexutil.Uint64(p.Opened.Number),
		Index:        hexutil.Uint64(p.Index),
		ParentHash:   p.Opened.ParentHash,
		Timestamp:    hexutil.Uint64(p.Opened.Timestamp),
		GasUsed:      hexutil.Uint64(p.GasUsed),
		Transactions: p.Transactions,
	}
	if f.Transactions == nil {
		f.Transactions = []common.Hash{} // "[]", as live, not null
	}
	if p.Opened.HasBaseFee {
		f.BaseFee = (*hexutil.Big)(p.Opened.BaseFee)
	}
	return f
}

// Preconfirmations is where resumed newFlashblocks subscriptions read
// what they missed: the sequencer's log.
type Preconfirmations interface {
	Preconfirmations(ctx context.Context, number uint64) iter.Seq2[seqlog.Preconfirmation, error]
}

// ResumeFlashblocksFrom lets newFlashblocks subscriptions resume from the
// pre-confirmations src holds; without it they do not resume.
func (h *Hub) ResumeFlashblocksFrom(src Preconfirmations) { h.preconfs = src }
