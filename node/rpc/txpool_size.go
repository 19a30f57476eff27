package rpc

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
)

// txEncoding is how a txpool listing writes each transaction: encode
// appends its JSON value, least is the fewest bytes that value can take.
type txEncoding struct {
	encode txEncoder
	least  func(tx *types.Transaction) int
}

// leastTxObject is the fewest bytes tx's object (txObject) takes: twice
// its consensus encoding's size. Every byte of that encoding appears in
// the object as two hex digits (data, addresses, signature, numbers
// without their leading zeros, which the encoding drops as well), with
// fewer bytes of RLP framing than the object has of names, quotes and the
// hash and sender it adds.
func leastTxObject(tx *types.Transaction) int { return 2 * int(tx.Size()) }

// leastInspectLine is the fewest bytes of txpool_inspect's line on any
// transaction: the creation of nothing for nothing.
func leastInspectLine(*types.Transaction) int {
	return len(`"contract creation: 0 wei + 0 gas × 0 wei"`)
}

// The framing of a listing, {"pending":…,"queued":…}, of a sender's key,
// "0x<40 hex digits>":, and of a transaction's, "<nonce>":.
const (
	listingFraming = len(`{"pending":,"queued":}`)
	senderKey      = len(`"0x0000000000000000000000000000000000000000":`)
	leastNonceKey  = len(`"0":`)
)

// leastByNonce is the fewest bytes {nonce: tx, ...} of txs takes.
func leastByNonce(enc txEncoding, txs []*types.Transaction) int {
	n := len("{}") + max(0, len(txs)-1)
	for _, tx := range txs {
		n += leastNonceKey + enc.least(tx)
	}
	return n
}

// leastBySender is the fewest bytes {sender: {nonce: tx}, ...} of txs takes.
func leastBySender(enc txEncoding, txs map[common.Address][]*types.Transaction) int {
	n := len("{}") + max(0, len(txs)-1)
	for _, list := range txs {
		n += senderKey + leastByNonce(enc, list)
	}
	return n
}

// checkRoom refuses, before it is built, a listing of count transactions
// that takes at least least bytes when r's response has less room: a full
// pool's content is tens of megabytes, all of it thrown away at the limit.
// instead names the methods that answer less.
func checkRoom(r *request, least, count int, instead string) error {
	if least <= r.room {
		return nil
	}
	return &codec.Error{Code: codec.CodeResponseTooLarge, Message: fmt.Sprintf(
		"response too large: the pool's %d transactions take at least %d bytes, more than the %d left in this response (--rpc.batch-response-max-size); ask %s, or txpool_status for the counts",
		count, least, r.room, instead)}
}

// countTxs counts the transactions of lists.
func countTxs(lists ...map[common.Address][]*types.Transaction) int {
	n := 0
	for _, list := range lists {
		for _, txs := range list {
			n += len(txs)
		}
	}
	return n
}
