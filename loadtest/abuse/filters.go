package abuse

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// filterChanges checks that a polling log filter reports every log since
// it was created: filters {} and {"fromBlock":"latest"} are installed, a
// transaction emits one log, and a second after its block each filter's
// eth_getFilterChanges must hold that log.
func (b *battery) filterChanges(ctx context.Context) outcome {
	var out outcome
	s, err := b.sender()
	if err != nil {
		out.err = err
		return out
	}
	queries := []string{`{}`, `{"fromBlock":"latest"}`}
	ids := make([]string, len(queries))
	for i, q := range queries {
		if err := s.rpc.Call(&ids[i], "eth_newFilter", json.RawMessage(q)); err != nil {
			out.err = fmt.Errorf("eth_newFilter(%s): %w", q, err)
			return out
		}
	}
	defer func() {
		for _, id := range ids {
			s.rpc.Call(nil, "eth_uninstallFilter", id)
		}
	}()
	var topic common.Hash
	rand.Read(topic[:])
	hash, err := s.send(nil, topicLogger(topic), 100_000)
	if err != nil {
		out.err = fmt.Errorf("send the logging transaction: %w", err)
		return out
	}
	r, err := s.receipt(ctx, hash)
	if err != nil {
		out.err = err
		return out
	}
	out.detailf("one log (topic %s…) in block %d; polled a second later", topic.Hex()[:10], r.BlockNumber)
	if !sleepCtx(ctx, time.Second) {
		out.err = ctx.Err()
		return out
	}
	for i, id := range ids {
		var logs []struct {
			TxHash common.Hash    `json:"transactionHash"`
			Topics []common.Hash  `json:"topics"`
			Block  hexutil.Uint64 `json:"blockNumber"`
		}
		if err := s.rpc.Call(&logs, "eth_getFilterChanges", id); err != nil {
			out.unexpectedf("filter %s: eth_getFilterChanges: %v", queries[i], err)
			continue
		}
		found := false
		for _, l := range logs {
			found = found || l.TxHash == hash
		}
		out.detailf("filter %s: %d logs, the transaction's %s", queries[i], len(logs), map[bool]string{true: "among them", false: "missing"}[found])
		if !found {
			out.unexpectedf("filter %s did not report the log of block %d (%d logs returned)", queries[i], r.BlockNumber, len(logs))
		}
	}
	return out
}
