package rpc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
)

var errFilterNotFound = errors.New("filter not found")

// filter is one polling filter (ethers and web3 use them for events over HTTP).
type filter struct {
	query    *LogFilter // nil for a block filter
	next     uint64     // first block not yet reported
	owner    netip.Addr // the client that installed it
	lastPoll time.Time
}

// filterSet holds the installed filters, at most max in all and perClient
// per client; idle ones expire.
type filterSet struct {
	mu        sync.Mutex
	filters   map[string]*filter
	owners    map[netip.Addr]int
	max       int
	perClient int
	timeout   time.Duration
	stop      chan struct{}
	once      sync.Once
}

func newFilterSet(timeout time.Duration, max, perClient int) *filterSet {
	fs := &filterSet{
		filters: make(map[string]*filter), owners: make(map[netip.Addr]int),
		max: max, perClient: perClient, timeout: timeout, stop: make(chan struct{}),
	}
	go fs.expireLoop()
	return fs
}

func (fs *filterSet) expireLoop() {
	ticker := time.NewTicker(fs.timeout / 4)
	defer ticker.Stop()
	for {
		select {
		case <-fs.stop:
			return
		case now := <-ticker.C:
			fs.mu.Lock()
			for id, f := range fs.filters {
				if now.Sub(f.lastPoll) > fs.timeout {
					fs.removeLocked(id, f)
				}
			}
			fs.mu.Unlock()
		}
	}
}

func (fs *filterSet) close() { fs.once.Do(func() { close(fs.stop) }) }

// add installs f for its owner and returns its id: 128 random bits in hex,
// as geth's.
func (fs *filterSet) add(f *filter) (string, error) {
	var b [16]byte
	rand.Read(b[:])
	id := "0x" + strings.TrimLeft(hex.EncodeToString(b[:]), "0")
	f.lastPoll = time.Now()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	switch {
	case fs.max > 0 && len(fs.filters) >= fs.max:
		return "", &codec.Error{Code: codec.CodeLimitExceeded, Message: fmt.Sprintf(
			"too many filters: the node holds its limit of %d (--rpc.filters.max); uninstall filters you no longer poll (eth_uninstallFilter)", fs.max)}
	case fs.perClient > 0 && fs.owners[f.owner] >= fs.perClient:
		return "", &codec.Error{Code: codec.CodeLimitExceeded, Message: fmt.Sprintf(
			"too many filters from %s: at most %d per client (--rpc.filters.per-client); uninstall filters you no longer poll (eth_uninstallFilter)", f.owner, fs.perClient)}
	}
	fs.filters[id] = f
	fs.owners[f.owner]++
	return id, nil
}

// poll returns filter id's state and marks it polled; ok is false when
// there is no such filter.
func (fs *filterSet) poll(id string) (f filter, ok bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	stored, ok := fs.filters[id]
	if !ok {
		return filter{}, false
	}
	stored.lastPoll = time.Now()
	return *stored, true
}

// advance records that filter id reported everything before block next.
func (fs *filterSet) advance(id string, next uint64) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.filters[id]; ok && next > f.next {
		f.next = next
	}
}

func (fs *filterSet) remove(id string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.filters[id]
	if ok {
		fs.removeLocked(id, f)
	}
	return ok
}

func (fs *filterSet) removeLocked(id string, f *filter) {
	delete(fs.filters, id)
	if n := fs.owners[f.owner] - 1; n > 0 {
		fs.owners[f.owner] = n
	} else {
		delete(fs.owners, f.owner)
	}
}

// owner is the client a request's filters belong to.
func (r *request) owner() netip.Addr {
	if r.peer == nil {
		return netip.Addr{}
	}
	return r.peer.Key()
}

func (r *request) filterID(i int) (string, error) {
	raw, err := r.required(i)
	if err != nil {
		return "", err
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", argError(i, errors.New("json: cannot unmarshal non-string into Go value of type rpc.ID"))
	}
	return string(raw[1 : len(raw)-1]), nil
}

func ethNewFilter(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	raw, err := r.required(0)
	if err != nil {
		return err
	}
	q, err := ParseLogFilter(raw)
	if err != nil {
		return argError(0, err)
	}
	id, err := s.filters.add(&filter{query: q, next: r.snap.Head.NumberU64() + 1, owner: r.owner()})
	if err != nil {
		return err
	}
	r.out = codec.AppendString(r.out, id)
	return nil
}

func ethNewBlockFilter(s *Server, r *request) error {
	id, err := s.filters.add(&filter{next: r.snap.Head.NumberU64() + 1, owner: r.owner()})
	if err != nil {
		return err
	}
	r.out = codec.AppendString(r.out, id)
	return nil
}

// ethGetFilterChanges reports what sealed since the last poll: block hashes
// for a block filter, matching logs for a log filter. A log filter reports
// every log from its installation on, as geth's does: its fromBlock and
// toBlock only narrow that when they are block numbers (a tag such as
// "latest" means no bound; "latest" read as the head at poll time would
// skip every log sealed between two polls).
func ethGetFilterChanges(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	id, err := r.filterID(0)
	if err != nil {
		return err
	}
	head := r.snap.Head.NumberU64()
	f, ok := s.filters.poll(id)
	if !ok {
		return errFilterNotFound
	}
	if f.next > head {
		return r.writeJSON([]any{})
	}
	from := max(f.next, head+1-min(head+1, s.cfg.LogsBlockRange))
	if f.query == nil {
		hashes := make([]common.Hash, 0, head+1-from)
		for n := from; n <= head; n++ {
			hashes = append(hashes, s.b.Chain.BlockChain().GetCanonicalHash(n))
		}
		s.filters.advance(id, head+1)
		return r.writeJSON(hashes)
	}
	lo, hi := from, head
	if b := f.query.from; b.Tag == codec.TagNumber || b.Tag == codec.TagEarliest {
		lo = max(lo, r.rangeBound(b))
	}
	if b := f.query.to; b.Tag == codec.TagNumber || b.Tag == codec.TagEarliest {
		hi = min(hi, r.rangeBound(b))
	}
	if lo > hi {
		s.filters.advance(id, head+1)
		return r.writeJSON([]*types.Log{})
	}
	q := *f.query
	q.blockHash = nil
	logs, err := s.logs(r, &q, lo, hi)
	next := head + 1
	var limit *logLimitError
	if errors.As(err, &limit) && !limit.single {
		// Deliver the blocks that fit; the rest comes with the next poll.
		logs, next, err = logsBefore(logs, limit.to+1), limit.to+1, nil
	}
	if err != nil {
		return err
	}
	s.filters.advance(id, next)
	return r.writeJSON(logs)
}

// logsBefore is the prefix of logs (in block order) below block n.
func logsBefore(logs []*types.Log, n uint64) []*types.Log {
	for i, l := range logs {
		if l.BlockNumber >= n {
			return logs[:i]
		}
	}
	return logs
}

func ethGetFilterLogs(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	id, err := r.filterID(0)
	if err != nil {
		return err
	}
	f, ok := s.filters.poll(id)
	if !ok || f.query == nil {
		return errFilterNotFound
	}
	logs, err := s.rangeLogs(r, f.query)
	if err != nil {
		return err
	}
	return r.writeJSON(logs)
}

func ethUninstallFilter(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	id, err := r.filterID(0)
	if err != nil {
		return err
	}
	r.out = codec.AppendBool(r.out, s.filters.remove(id))
	return nil
}
