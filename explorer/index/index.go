// Package index is the explorer's address index: for every address, the
// transactions it sent or received and the ERC-20 token transfers it took
// part in, newest first, and for every token the addresses that ever held
// it. It lives in a pebble database of its own, is written as blocks seal
// (one atomic batch per block, so a crash resumes at the last whole block)
// and catches up with the chain on start, which also indexes imported chains.
package index

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Tx is one transaction in an address's history.
type Tx struct {
	Block uint64
	Index uint32 // position in the block
	Time  uint64 // the block's timestamp
	Hash  common.Hash
	From  common.Address
	// To is nil for a contract creation; Created is then the new contract.
	To      *common.Address
	Created common.Address
	Value   *big.Int
	Status  uint8 // the receipt's status: 1 success, 0 failure
	GasUsed uint64
}

// Transfer is one ERC-20 Transfer log (three topics, a 32-byte amount) in
// an address's history, sent or received.
type Transfer struct {
	Block    uint64
	TxIndex  uint32
	LogIndex uint32 // the log's index in the block
	Time     uint64
	TxHash   common.Hash
	Token    common.Address
	From, To common.Address
	Value    *big.Int
}

// Cursor is a position in a history, newest first: a page starts strictly
// older than its cursor. The zero Cursor starts at the newest entry.
type Cursor struct {
	Block uint64
	Index uint32 // transaction index
	Log   uint32 // log index (transfers only)
}

// IsZero reports whether c starts at the newest entry.
func (c Cursor) IsZero() bool { return c == Cursor{} }
