package ws

import (
	"sync"

	"github.com/fasthttp/websocket"

	"github.com/ethereum/go-ethereum/core/types"
)

// delivery is one encoded event on its way to a shard's connections, or
// the keepalive tick.
type delivery struct {
	// ping asks the shard to ping its connections whose id is pingSlice
	// modulo pingSlices: each shard pings its own, so the hub is not busy
	// with thousands of writes, and a slice at a time.
	ping      bool
	pingSlice uint64
	kind      subKind
	// number is the block of newHeads, logs and newFlashblocks
	// deliveries, index a flashblock's: resumed subscriptions drop what
	// their history sent by them (resume.go).
	number, index uint64
	// payload is the result for every subscriber of kind (newHeads,
	// newFlashblocks).
	payload *payload
	// logs are the logs of a block (logs, pendingLogs), each encoded once;
	// subscribers' filters pick theirs.
	logs []encodedLog
	// txHashes / txFull are newPendingTransactions and
	// newFlashblockTransactions results; txLogs are the logs of txFull's
	// transactions, for newFlashblockTransactions' filters.
	txHashes, txFull []*payload
	txLogs           [][]*types.Log
}

type encodedLog struct {
	log  *types.Log
	json *payload
}

// shard writes deliveries to its share of the connections. The
// connections are a slice (each knows its index) because every event walks
// all of them.
type shard struct {
	mu    sync.RWMutex
	conns []*conn
	in    chan delivery
}

func newShard() *shard {
	return &shard{in: make(chan delivery, 1024)}
}

func (s *shard) add(c *conn) {
	s.mu.Lock()
	c.shardIndex = len(s.conns)
	s.conns = append(s.conns, c)
	s.mu.Unlock()
}

func (s *shard) remove(c *conn) {
	s.mu.Lock()
	last := s.conns[len(s.conns)-1]
	s.conns[c.shardIndex] = last
	last.shardIndex = c.shardIndex
	s.conns[len(s.conns)-1] = nil
	s.conns = s.conns[:len(s.conns)-1]
	s.mu.Unlock()
}

func (s *shard) closeAll(code int, text string) {
	s.each(func(c *conn) { c.close(code, text) })
}

// each calls f for every connection of the shard.
func (s *shard) each(f func(*conn)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, c := range s.conns {
		f(c)
	}
}

func (s *shard) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case d := <-s.in:
			if d.ping {
				s.ping(d.pingSlice)
			} else {
				s.deliver(&d)
			}
		}
	}
}

// pingSlices is how many parts one keepalive interval's pings go out in.
const pingSlices = 32

// ping pings the shard's connections of one slice. A connection's slice is
// its id's, which never changes: each is pinged once per interval.
func (s *shard) ping(slice uint64) {
	s.each(func(c *conn) {
		if c.id%pingSlices == slice {
			c.ping()
		}
	})
}

func (s *shard) deliver(d *delivery) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, c := range s.conns {
		c.deliver(d)
	}
}

// deliver queues what d holds for c's matching subscriptions.
func (c *conn) deliver(d *delivery) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sub := range c.subs {
		if sub.kind != d.kind || !sub.active {
			continue
		}
		switch d.kind {
		case kindNewHeads, kindFlashblocks:
			if !c.sendKeyed(sub, d.number, d.index, d.payload) {
				return
			}
		case kindLogs:
			for _, l := range d.logs {
				if sub.filter.Matches(l.log) && !c.sendKeyed(sub, d.number, uint64(l.log.Index), l.json) {
					return
				}
			}
		case kindPendingLogs:
			for _, l := range d.logs {
				if sub.filter.Matches(l.log) && !c.send(outMsg{sub: sub, payload: l.json}) {
					return
				}
			}
		case kindFlashTxs:
			for _, p := range d.txHashes {
				if !c.send(outMsg{sub: sub, payload: p}) {
					return
				}
			}
		case kindFlashTxFull:
			if !c.deliverFlashTxs(sub, d) {
				return
			}
		case kindPendingTxs:
			list := d.txHashes
			if sub.full {
				list = d.txFull
			}
			for _, p := range list {
				if !c.send(outMsg{sub: sub, payload: p}) {
					return
				}
			}
		}
	}
}

// sendKeyed sends sub the live notification keyed (number, index), unless
// a resumed subscription's history sent it already, or keeps it while that
// history is still being sent; false when the connection is closing. c.mu
// must be held.
func (c *conn) sendKeyed(sub *subscription, number, index uint64, p *payload) bool {
	switch {
	case sub.resumeFrom == nil:
		return c.send(outMsg{sub: sub, payload: p})
	case !sub.after(number, index):
		return true
	case sub.resuming:
		if len(sub.backlog) >= c.hub.cfg.SendQueue {
			c.hub.metrics.slowDropped.Add(1)
			c.close(websocket.ClosePolicyViolation, c.hub.cfg.slowReason())
			return false
		}
		sub.backlog = append(sub.backlog, backlogged{number: number, index: index, payload: p})
		return true
	}
	sub.sent(number, index)
	return c.send(outMsg{sub: sub, payload: p})
}
