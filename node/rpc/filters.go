package rpc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
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
	lastPoll time.Time
}

// filterSet holds the installed filters; idle ones expire.
type filterSet struct {
	mu      sync.Mutex
	filters map[string]*filter
	timeout time.Duration
	stop    chan struct{}
	once    sync.Once
}

func newFilterSet(timeout time.Duration) *filterSet {
	fs := &filterSet{filters: make(map[string]*filter), timeout: timeout, stop: make(chan struct{})}
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
					delete(fs.filters, id)
				}
			}
			fs.mu.Unlock()
		}
	}
}

func (fs *filterSet) close() { fs.once.Do(func() { close(fs.stop) }) }

// add installs f and returns its id: 128 random bits in hex, as geth's.
func (fs *filterSet) add(f *filter) string {
	var b [16]byte
	rand.Read(b[:])
	id := "0x" + strings.TrimLeft(hex.EncodeToString(b[:]), "0")
	f.lastPoll = time.Now()
	fs.mu.Lock()
	fs.filters[id] = f
	fs.mu.Unlock()
	return id
}

// take returns filter id's state and advances it to next; ok is false when
// there is no such filter.
func (fs *filterSet) take(id string, next uint64) (f filter, ok bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	stored, ok := fs.filters[id]
	if !ok {
		return filter{}, false
	}
	f = *stored
	stored.lastPoll = time.Now()
	if next > stored.next {
		stored.next = next
	}
	return f, true
}

func (fs *filterSet) get(id string) (*LogFilter, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.filters[id]
	if !ok {
		return nil, false
	}
	f.lastPoll = time.Now()
	return f.query, true
}

func (fs *filterSet) remove(id string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	_, ok := fs.filters[id]
	delete(fs.filters, id)
	return ok
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
	id := s.filters.add(&filter{query: q, next: r.snap.Head.NumberU64() + 1})
	r.out = codec.AppendString(r.out, id)
	return nil
}

func ethNewBlockFilter(s *Server, r *request) error {
	id := s.filters.add(&filter{next: r.snap.Head.NumberU64() + 1})
	r.out = codec.AppendString(r.out, id)
	return nil
}

// ethGetFilterChanges reports what sealed since the last poll: block hashes
// for a block filter, matching logs for a log filter.
func ethGetFilterChanges(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	id, err := r.filterID(0)
	if err != nil {
		return err
	}
	head := r.snap.Head.NumberU64()
	f, ok := s.filters.take(id, head+1)
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
		return r.writeJSON(hashes)
	}
	q := *f.query
	q.blockHash = nil
	logs, err := s.logs(r, &q, max(from, r.rangeBound(f.query.from)), min(head, r.rangeBound(f.query.to)))
	if errors.Is(err, errInvalidBlockRange) {
		return r.writeJSON([]*types.Log{})
	}
	if err != nil {
		return err
	}
	return r.writeJSON(logs)
}

func ethGetFilterLogs(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	id, err := r.filterID(0)
	if err != nil {
		return err
	}
	q, ok := s.filters.get(id)
	if !ok || q == nil {
		return errFilterNotFound
	}
	logs, err := s.logs(r, q, r.rangeBound(q.from), r.rangeBound(q.to))
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
