package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	json "github.com/goccy/go-json"

	"github.com/stocknode/stocknode/codec"
)

const (
	maxTopics    = 4
	maxAddresses = 1000
)

var (
	errBlockHashWithRange = errors.New("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
	errInvalidBlockRange  = &invalidParamsError{errors.New("invalid block range params")}
	errRangeIntoFuture    = &invalidParamsError{errors.New("block range extends beyond current head block")}
	errExceedMaxTopics    = errors.New("exceed max topics")
	errExceedMaxAddresses = errors.New("exceed max addresses")
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

// ParseLogFilter decodes a filter object (cold path: goccy/go-json).
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
		out = append(out, h)
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
// block), in block and log order.
func (s *Server) logs(r *request, q *LogFilter, from, to uint64) ([]*types.Log, error) {
	bc := s.b.Chain.BlockChain()
	out := []*types.Log{}
	if q.blockHash != nil {
		header := bc.GetHeaderByHash(*q.blockHash)
		if header == nil || header.Number.Uint64() > r.snap.Head.NumberU64() {
			return nil, errors.New("unknown block")
		}
		return s.blockLogs(q, header, out), nil
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
	for n := from; n <= to; n++ {
		if n > head {
			out = s.pendingLogs(r, q, out)
			break
		}
		header := bc.GetHeaderByNumber(n)
		if header == nil {
			break
		}
		out = s.blockLogs(q, header, out)
	}
	return out, nil
}

func (s *Server) blockLogs(q *LogFilter, header *types.Header, out []*types.Log) []*types.Log {
	if !q.bloomMatches(header.Bloom) {
		return out
	}
	for _, receipt := range s.b.Chain.BlockChain().GetReceiptsByHash(header.Hash()) {
		for _, l := range receipt.Logs {
			if q.Matches(l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// pendingLogs are the logs of pre-confirmed transactions.
func (s *Server) pendingLogs(r *request, q *LogFilter, out []*types.Log) []*types.Log {
	for _, receipt := range r.snap.Pending.Receipts {
		for _, l := range receipt.Logs {
			if q.Matches(l) {
				out = append(out, l)
			}
		}
	}
	return out
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
	logs, err := s.logs(r, q, r.rangeBound(q.from), r.rangeBound(q.to))
	if err != nil {
		return err
	}
	return r.writeJSON(logs)
}
