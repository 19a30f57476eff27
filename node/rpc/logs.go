package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/pending"
)

// geth's limits on a filter's criteria (eth/filters): they bound what one
// filter holds and what matching a log against it costs.
const (
	maxTopics    = 4
	maxAddresses = 1000
	maxSubTopics = 1000 // alternatives at one topic position
)

var (
	errBlockHashWithRange = errors.New("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
	errInvalidBlockRange  = &invalidParamsError{errors.New("invalid block range params")}
	errRangeIntoFuture    = &invalidParamsError{errors.New("block range extends beyond current head block")}
	errExceedMaxTopics    = errors.New("exceed max topics")
	errExceedMaxAddresses = errors.New("exceed max addresses")
	errExceedSubTopics    = errors.New("exceed max addresses or topics per search position")
)

// LogFilter is a parsed eth_getLogs / eth_newFilter criteria object; the
// WebSocket logs subscriptions use the same parser and matcher.
type LogFilter struct {
	blockHash *common.Hash
	from, to  codec.BlockParam
	addresses []common.Address
	topics    [][]common.Hash // per position; empty = wildcard
}

type rawLogFilter struct {
	BlockHash *common.Hash      `json:"blockHash"`
	FromBlock json.RawMessage   `json:"fromBlock"`
	ToBlock   json.RawMessage   `json:"toBlock"`
	Address   json.RawMessage   `json:"address"`
	Topics    []json.RawMessage `json:"topics"`
}

// ParseLogFilter decodes a filter object (cold path: encoding/json).
func ParseLogFilter(raw []byte) (*LogFilter, error) {
	var in rawLogFilter
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	q := &LogFilter{blockHash: in.BlockHash, from: codec.BlockParam{Tag: codec.TagLatest}, to: codec.BlockParam{Tag: codec.TagLatest}}
	if in.BlockHash != nil && (isSet(in.FromBlock) || isSet(in.ToBlock)) {
		return nil, errBlockHashWithRange
	}
	var err error
	if isSet(in.FromBlock) {
		if q.from, err = rangeParam(in.FromBlock); err != nil {
			return nil, fmt.Errorf("fromBlock: %w", err)
		}
	}
	if isSet(in.ToBlock) {
		if q.to, err = rangeParam(in.ToBlock); err != nil {
			return nil, fmt.Errorf("toBlock: %w", err)
		}
	}
	if q.addresses, err = parseAddresses(in.Address); err != nil {
		return nil, err
	}
	if len(in.Topics) > maxTopics {
		return nil, errExceedMaxTopics
	}
	for _, t := range in.Topics {
		set, err := parseTopicSet(t)
		if err != nil {
			return nil, err
		}
		q.topics = append(q.topics, set)
	}
	return q, nil
}

func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func rangeParam(raw []byte) (codec.BlockParam, error) {
	bp, err := codec.ParseBlockParam(raw)
	if err == nil && bp.Tag == codec.TagHash {
		err = errors.New("a block hash is not a range bound: use blockHash")
	}
	return bp, err
}

func parseAddresses(raw json.RawMessage) ([]common.Address, error) {
	if !isSet(raw) {
		return nil, nil
	}
	if raw[0] != '[' {
		addr, err := codec.ParseAddress(raw)
		if err != nil {
			return nil, fmt.Errorf("invalid address: %w", err)
		}
		return []common.Address{addr}, nil
	}
	it, err := codec.Array(raw)
	if err != nil {
		return nil, err
	}
	var out []common.Address
	for it.Next() {
		addr, err := codec.ParseAddress(it.Value())
		if err != nil {
			return nil, fmt.Errorf("invalid address at index %d: %w", it.Index(), err)
		}
		if out = append(out, addr); len(out) > maxAddresses {
			return nil, errExceedMaxAddresses
		}
	}
	return out, it.Err()
}

func parseTopicSet(raw json.RawMessage) ([]common.Hash, error) {
	if !isSet(raw) {
		return nil, nil
	}
	if raw[0] != '[' {
		h, err := codec.ParseHash(raw)
		if err != nil {
			return nil, fmt.Errorf("invalid topic: %w", err)
		}
		return []common.Hash{h}, nil
	}
	it, err := codec.Array(raw)
	if err != nil {
		return nil, err
	}
	var out []common.Hash
	for it.Next() {
		if string(it.Value()) == "null" {
			return nil, nil // a null inside an OR-list matches anything
		}
		h, err := codec.ParseHash(it.Value())
		if err != nil {
			return nil, fmt.Errorf("invalid topic: %w", err)
		}
		if out = append(out, h); len(out) > maxSubTopics {
			return nil, errExceedSubTopics
		}
	}
	return out, it.Err()
}

// Matches reports whether log l passes the address and topic filters.
func (q *LogFilter) Matches(l *types.Log) bool {
	if len(q.addresses) > 0 && !contains(q.addresses, l.Address) {
		return false
	}
	if len(q.topics) > len(l.Topics) {
		return false
	}
	for i, set := range q.topics {
		if len(set) > 0 && !contains(set, l.Topics[i]) {
			return false
		}
	}
	return true
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// bloomMatches skips blocks whose bloom rules the query out.
func (q *LogFilter) bloomMatches(bloom types.Bloom) bool {
	if len(q.addresses) > 0 {
		found := false
		for _, a := range q.addresses {
			if types.BloomLookup(bloom, a) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, set := range q.topics {
		if len(set) == 0 {
			continue
		}
		found := false
		for _, t := range set {
			if types.BloomLookup(bloom, t) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// blockNumber resolves a range bound against the snapshot; pending is one
// past the head.
func (r *request) rangeBound(bp codec.BlockParam) uint64 {
	head := r.snap.Head.NumberU64()
	switch bp.Tag {
	case codec.TagEarliest:
		return 0
	case codec.TagPending:
		return r.snap.Pending.Header.Number.Uint64()
	case codec.TagNumber:
		return bp.Number
	default:
		return head
	}
}

// logs returns the matching logs of blocks from..to (to may be the pending
// block), in block and log order. It stops, with a *logLimitError naming
// the range that fits and the logs gathered so far, as soon as the logs
// would pass the result cap or the response's room: the answer is never
// built past what may be sent.
func (s *Server) logs(r *request, q *LogFilter, from, to uint64) ([]*types.Log, error) {
	bc := s.b.Chain.BlockChain()
	c := s.newLogCollector(r, from)
	if q.blockHash != nil {
		header := bc.GetHeaderByHash(*q.blockHash)
		if header == nil || header.Number.Uint64() > r.current.Head.NumberU64() {
			return nil, errors.New("unknown block")
		}
		c.from = header.Number.Uint64()
		if err := s.blockLogs(c, q, header); err != nil {
			return nil, err
		}
		return c.out, nil
	}
	if from > to {
		return nil, errInvalidBlockRange
	}
	// Blocks beyond the pending one do not exist yet (geth: beyond the head).
	head := r.snap.Head.NumberU64()
	if to > r.snap.Pending.Header.Number.Uint64() {
		return nil, errRangeIntoFuture
	}
	if to-from > s.cfg.LogsBlockRange {
		return nil, &invalidParamsError{fmt.Errorf("exceed maximum block range %d", s.cfg.LogsBlockRange)}
	}
	var gone hangUp
	for n := from; n <= to; n++ {
		if (n-from)%64 == 63 {
			if r.expired() {
				return nil, errTimeout
			}
			if gone.check(r.peer) {
				return nil, errClientGone
			}
		}
		if n > head {
			if err := c.pendingReceipts(q, r.snap.Pending, n, r.view); err != nil {
				return c.out, err
			}
			break
		}
		header := bc.GetHeaderByNumber(n)
		if header == nil {
			break
		}
		if err := s.blockLogs(c, q, header); err != nil {
			return c.out, err
		}
	}
	return c.out, nil
}

var errClientGone = errors.New("client went away")

// logCollector gathers a query's logs up to the result cap and the
// response's room, counting the bytes each log takes in the answer.
type logCollector struct {
	out            []*types.Log
	results, bytes int
	maxResults     int
	room           int
	from           uint64 // the query's first block
}

func (s *Server) newLogCollector(r *request, from uint64) *logCollector {
	maxResults := s.cfg.LogsMaxResults
	if maxResults <= 0 {
		maxResults = math.MaxInt
	}
	return &logCollector{out: []*types.Log{}, maxResults: maxResults, room: r.room, from: from}
}

// logJSONSize bounds the bytes l takes in an answer: its fixed fields,
// 70 per topic, two per data byte.
func logJSONSize(l *types.Log) int { return 420 + 70*len(l.Topics) + 2*len(l.Data) }

// add takes l, found in block n, unless it passes a limit.
func (c *logCollector) add(l *types.Log, n uint64) error {
	size := logJSONSize(l)
	if c.results+1 > c.maxResults {
		return c.limitError(n, fmt.Sprintf("%d results", c.maxResults))
	}
	if c.bytes+size > c.room {
		return c.limitError(n, fmt.Sprintf("%d bytes", c.room))
	}
	c.results++
	c.bytes += size
	c.out = append(c.out, l)
	return nil
}

// limitError says how far the query may go: up to the block before n,
// the one that did not fit.
func (c *logCollector) limitError(n uint64, limit string) error {
	e := &logLimitError{limit: limit, from: c.from, to: n - 1}
	if n == c.from {
		e.to = n
		e.single = true
	}
	return e
}

// logLimitError is eth_getLogs' answer past a limit, worded as hosted
// providers word it, with the range that fits as data.
type logLimitError struct {
	limit    string
	from, to uint64
	single   bool // one block alone passes the limit
}

func (e *logLimitError) Error() string {
	if e.single {
		return fmt.Sprintf("query returned more than %s in block %#x alone; narrow the addresses or topics", e.limit, e.from)
	}
	return fmt.Sprintf("query returned more than %s; try the range %#x-%#x", e.limit, e.from, e.to)
}

func (e *logLimitError) rpcError() *codec.Error {
	cerr := &codec.Error{Code: codec.CodeLimitExceeded, Message: e.Error()}
	if !e.single {
		cerr.Data = fmt.Appendf(nil, `{"from":"%#x","to":"%#x"}`, e.from, e.to)
	}
	return cerr
}

// blockLogs adds the matching logs of the sealed block header.
func (s *Server) blockLogs(c *logCollector, q *LogFilter, header *types.Header) error {
	if !q.bloomMatches(header.Bloom) {
		return nil
	}
	return c.receipts(q, s.b.Chain.BlockChain().GetReceiptsByHash(header.Hash()), header.Number.Uint64())
}

// receipts adds the matching logs of block n's receipts (the pending
// block's are those of its pre-confirmed transactions).
func (c *logCollector) receipts(q *LogFilter, receipts types.Receipts, n uint64) error {
	for _, receipt := range receipts {
		for _, l := range receipt.Logs {
			if !q.Matches(l) {
				continue
			}
			if err := c.add(l, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// pendingReceipts adds the matching logs of the pending block p (number
// n), each naming p's PreconfHash as its block's in the Preconf view, the
// zero hash in the Standard view (where the block has none yet).
func (c *logCollector) pendingReceipts(q *LogFilter, p *pending.Block, n uint64, view View) error {
	var hash common.Hash
	if view == Preconf {
		hash = p.PreconfHash()
	}
	for _, receipt := range p.Receipts {
		for _, l := range receipt.Logs {
			if !q.Matches(l) {
				continue
			}
			copied := *l
			copied.BlockHash = hash
			if err := c.add(&copied, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func ethGetLogs(s *Server, r *request) error {
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
	logs, err := s.rangeLogs(r, q)
	if err != nil {
		return err
	}
	return r.writeJSON(logs)
}

// rangeLogs answers q over its block range (or block hash), as eth_getLogs
// does. On /, a range that names the pending block by number reaches
// beyond the head, as on geth: only the pending tag reads pre-confirmed
// logs there. A range named past a sender's held view (heldSnapshot) is
// read from the current chain: the client learnt of those blocks
// elsewhere.
func (s *Server) rangeLogs(r *request, q *LogFilter) ([]*types.Log, error) {
	for _, b := range []codec.BlockParam{q.from, q.to} {
		if b.Tag != codec.TagNumber {
			continue
		}
		if r.view == Standard && b.Number > r.current.Head.NumberU64() {
			return nil, errRangeIntoFuture
		}
		if b.Number > r.snap.Head.NumberU64() {
			r.snap = r.current
		}
	}
	return s.logs(r, q, r.rangeBound(q.from), r.rangeBound(q.to))
}
