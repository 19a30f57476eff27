package ws

import (
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/rpc"
)

// newFlashblockTransactions, as Base documents it (docs.base.org,
// Flashblocks API): one notification per transaction, as it is
// pre-confirmed. Its second parameter is
//   - omitted, null or false: the transaction's hash;
//   - true: the transaction object with its receipt's fields beside it
//     (Base's TransactionWithLogs: blockHash null, blockNumber and
//     transactionIndex of the pending block, gasUsed, status,
//     cumulativeGasUsed, contractAddress, logsBloom, logs);
//   - a filter object, address and topics as eth_getLogs takes them: the
//     same full objects, of the transactions with at least one log the
//     filter matches (every log of such a transaction comes with it).
//
// Each pre-confirmed transaction is encoded once per form, and only for a
// form somebody subscribed to; a shard then hands the bytes to each
// subscriber without allocating. A subscriber that cannot take them is
// closed as too slow, as for every other subscription: a burst of
// transactions is a burst of messages.

// parseFlashTxArg reads newFlashblockTransactions' second parameter into
// sub, a hash subscription until then.
func parseFlashTxArg(sub *subscription, arg []byte) *codec.Error {
	switch {
	case arg == nil || string(arg) == "null" || string(arg) == "false":
		return nil
	case string(arg) == "true":
		sub.kind = kindFlashTxFull
		return nil
	case arg[0] == '{':
		filter, err := rpc.ParseLogFilter(arg)
		if err != nil {
			return &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: " + err.Error()}
		}
		sub.kind, sub.filter = kindFlashTxFull, filter
		return nil
	}
	return &codec.Error{Code: codec.CodeInvalidParams, Message: "invalid argument 1: expected a boolean or a filter object (address, topics)"}
}

// flashTxs announces the transactions of p from index from on.
func (h *Hub) flashTxs(p *pending.Block, from int) {
	n := len(p.Transactions) - from
	if n <= 0 {
		return
	}
	if h.metrics.wanted(kindFlashTxs) {
		d := delivery{kind: kindFlashTxs, txHashes: make([]*payload, n)}
		for i, tx := range p.Transactions[from:] {
			d.txHashes[i] = &payload{b: codec.AppendHash(nil, tx.Hash())}
		}
		h.fanOut(d)
	}
	if h.metrics.wanted(kindFlashTxFull) {
		config := h.chain.Config()
		d := delivery{kind: kindFlashTxFull, txFull: make([]*payload, n), txLogs: make([][]*types.Log, n)}
		for i := range n {
			d.txFull[i] = mustJSON(rpc.FlashblockTransaction(p, from+i, config))
			d.txLogs[i] = p.Receipts[from+i].Logs
		}
		h.fanOut(d)
	}
}

// deliverFlashTxs queues d's full transactions for sub: all of them, or
// those with a log sub's filter matches. It reports false when c is
// closing (or was just closed as too slow).
func (c *conn) deliverFlashTxs(sub *subscription, d *delivery) bool {
	for i, p := range d.txFull {
		if sub.filter != nil && !anyMatches(sub.filter, d.txLogs[i]) {
			continue
		}
		if !c.send(outMsg{sub: sub, payload: p}) {
			return false
		}
	}
	return true
}

func anyMatches(f *rpc.LogFilter, logs []*types.Log) bool {
	for _, l := range logs {
		if f.Matches(l) {
			return true
		}
	}
	return false
}
