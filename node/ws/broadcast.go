package ws

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/rpc"
)

// pendingCursor remembers how many transactions of the pending block were
// already announced, so pendingLogs carries each log once.
type pendingCursor struct {
	number uint64
	txs    int
}

// dispatch encodes one event once and hands it to every shard.
func (h *Hub) dispatch(ev event) {
	switch {
	case ev.newTxs != nil:
		if h.metrics.wanted(kindPendingTxs) {
			h.fanOut(h.encodeTxs(ev.newTxs))
		}
	case ev.sealed != nil:
		number := ev.sealed.NumberU64()
		// Announced before it is delivered: a resumed subscription's
		// history goes up to it (resume.go).
		h.lastSealed.Store(number)
		if h.metrics.wanted(kindNewHeads) {
			h.fanOut(delivery{kind: kindNewHeads, number: number, payload: mustJSON(rpc.MarshalHeader(ev.sealed.Header()))})
		}
		if h.metrics.wanted(kindLogs) {
			receipts := h.chain.BlockChain().GetReceiptsByHash(ev.sealed.Hash())
			if logs := encodeLogs(receipts, nil); len(logs) > 0 {
				h.fanOut(delivery{kind: kindLogs, number: number, logs: logs})
			}
		}
		// The seal's snapshot, which holds the next block's first
		// pre-confirmation, comes next as a Preconfirmed event of its own
		// (the publisher tells both): announcing it here too sent that
		// flashblock twice.
	case ev.snap != nil:
		h.preconfirmed(ev.snap)
	}
}

// preconfirmed announces a pending snapshot and the logs of the
// transactions it pre-confirmed since the previous one.
func (h *Hub) preconfirmed(snap *pending.Snapshot) {
	p := snap.Pending
	number := p.Header.Number.Uint64()
	if number == snap.Head.NumberU64() {
		return // block production off: nothing is pre-confirmed
	}
	// Announced before it is delivered, as a sealed block.
	h.lastFlash.Store(&flashKey{number: number, index: uint64(p.Index)})
	if h.metrics.wanted(kindFlashblocks) {
		h.fanOut(delivery{kind: kindFlashblocks, number: number, index: uint64(p.Index), payload: mustJSON(flashblock(p))})
	}
	from := 0
	if h.lastPending.number == number {
		from = min(h.lastPending.txs, len(p.Receipts))
	}
	// The cursor moves even with nobody listening: a later subscriber gets
	// only logs pre-confirmed after it subscribed.
	h.lastPending = pendingCursor{number: number, txs: len(p.Receipts)}
	h.flashTxs(p, from)
	if !h.metrics.wanted(kindPendingLogs) {
		return
	}
	// As Base's: a pre-confirmed log names no block hash yet (the zero
	// hash), like the pre-confirmed receipt it is in.
	hash := p.PreconfHash()
	preconfirmed := func(logs []*types.Log) []*types.Log { return rpc.PreconfirmedLogs(logs, hash) }
	if logs := encodeLogs(p.Receipts[from:], preconfirmed); len(logs) > 0 {
		h.fanOut(delivery{kind: kindPendingLogs, logs: logs})
	}
}

func (h *Hub) fanOut(d delivery) {
	for _, s := range h.shards {
		select {
		case s.in <- d:
		case <-h.stop:
			return
		}
	}
}

// encodeLogs encodes the receipts' logs, each as view (when not nil)
// makes it.
func encodeLogs(receipts types.Receipts, view func([]*types.Log) []*types.Log) []encodedLog {
	var out []encodedLog
	for _, r := range receipts {
		logs := r.Logs
		if view != nil {
			logs = view(logs)
		}
		for _, l := range logs {
			out = append(out, encodedLog{log: l, json: mustJSON(l)})
		}
	}
	return out
}

func (h *Hub) encodeTxs(txs []*types.Transaction) delivery {
	d := delivery{kind: kindPendingTxs}
	config := h.chain.Config()
	head := h.chain.Head()
	for _, tx := range txs {
		d.txHashes = append(d.txHashes, &payload{b: codec.AppendHash(nil, tx.Hash())})
		d.txFull = append(d.txFull, mustJSON(rpc.NewRPCTransaction(tx, common.Hash{}, head.Number.Uint64()+1, head.Time, 0, nil, config)))
	}
	return d
}

// flashblockResult is the newFlashblocks notification: the pre-confirmed
// block as of one tick (Base's Flashblocks stream, in a compact form).
type flashblockResult struct {
	Number       hexutil.Uint64 `json:"number"`
	Index        hexutil.Uint64 `json:"index"`
	ParentHash   common.Hash    `json:"parentHash"`
	Timestamp    hexutil.Uint64 `json:"timestamp"`
	GasUsed      hexutil.Uint64 `json:"gasUsed"`
	BaseFee      *hexutil.Big   `json:"baseFeePerGas"`
	Transactions []common.Hash  `json:"transactions"`
}

func flashblock(p *pending.Block) flashblockResult {
	hashes := make([]common.Hash, len(p.Transactions))
	for i, tx := range p.Transactions {
		hashes[i] = tx.Hash()
	}
	return flashblockResult{
		Number:       hexutil.Uint64(p.Header.Number.Uint64()),
		Index:        hexutil.Uint64(p.Index),
		ParentHash:   p.Header.ParentHash,
		Timestamp:    hexutil.Uint64(p.Header.Time),
		GasUsed:      hexutil.Uint64(p.Header.GasUsed),
		BaseFee:      (*hexutil.Big)(p.Header.BaseFee),
		Transactions: hashes,
	}
}

// mustJSON encodes values whose encoding cannot fail (fixed types).
func mustJSON(v any) *payload {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return &payload{b: b}
}
