package web

import (
	"cmp"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/explorer/index"
)

// The address index is written after a block seals, while the RPC answers
// the block's receipts as soon as it seals (and, by default, as soon as a
// transaction is pre-confirmed): a wallet that waited for its receipt and
// opens the address page at once must find the transaction there. So a
// page reads the index through one snapshot of it and adds, from the chain,
// what the snapshot does not hold yet: the sealed blocks above it, up to
// the request's head, and the pre-confirmed block.

// transferTopic is topic0 of the ERC-20 Transfer event.
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// maxTrail bounds the sealed blocks above the index that a page reads.
// Following the head the index trails by a block or two; further behind
// it is catching up (a new index, an imported chain) and the page says so
// rather than read the chain (explorer/etherscan's maxLag is the same).
const maxTrail = 16

// txEntry is a transaction in an address's list: from the index, from a
// sealed block the index has not reached, or pre-confirmed.
type txEntry struct {
	index.Tx
	Method string
	// Pre marks a pre-confirmed transaction: Block is the block being
	// built, which has no page yet.
	Pre bool
}

// transferEntry is a token transfer in an address's list, as txEntry.
type transferEntry struct {
	index.Transfer
	Pre bool
}

// txBlock is a block as a page scans it for an address: a sealed block
// above the index, or the pre-confirmed block.
type txBlock struct {
	header   *types.Header
	txs      types.Transactions
	receipts func() (types.Receipts, error)
	pre      bool
}

// unindexed is what the index snapshot does not hold of one address,
// newest first.
type unindexed struct {
	addr   common.Address
	before index.Cursor // keep only entries older than this (zero: all)
	keep   int          // keep at most this many transactions and transfers

	txs       []txEntry
	transfers []transferEntry
	// tokenTransfers are the transfers of the token at addr: the Transfer
	// logs it emitted, whoever sent and received them.
	tokenTransfers []transferEntry
	// tokens are the tokens the address sent or received in the sealed
	// blocks (holdings are read at the head: pre-confirmed ones would
	// show nothing yet).
	tokens []common.Address
	// sealedTxs, sealedTransfers and sealedTokenTransfers count the
	// entries of sealed blocks, which the index's counts do not hold yet.
	sealedTxs, sealedTransfers, sealedTokenTransfers uint64
	// complete is false when the index trails by more than maxTrail
	// blocks: only the pre-confirmed block was read.
	complete bool
}

// trail is what a page adds to the index: the sealed blocks above the
// snapshot's last one, newest first, and the pre-confirmed block when the
// snapshot does not hold its number (the index may have sealed and
// indexed it since the request's snapshot was taken).
type trail struct {
	indexed, head uint64
	sealed        []txBlock
	pending       *txBlock
	complete      bool
}

// trailOf lists the blocks above hs as of r's snapshot.
func (e *Explorer) trailOf(r *request, hs HistorySnapshot) (trail, error) {
	head := r.snap.Head.NumberU64()
	indexed, ok := hs.Indexed()
	next := indexed + 1
	if !ok {
		next = 0
	}
	t := trail{indexed: indexed, head: head, complete: head < next || head-next < e.trailLimit}
	if t.complete {
		// n <= head stops the loop at the genesis too (next 0: n wraps).
		for n := head; n >= next && n <= head; n-- {
			b, err := e.sealedBlock(r, n)
			if err != nil {
				return trail{}, err
			}
			t.sealed = append(t.sealed, b)
		}
	}
	if p := r.snap.Pending; p.Header.Number.Uint64() > head && p.Header.Number.Uint64() >= next {
		t.pending = &txBlock{header: p.Header, txs: p.Transactions, pre: true,
			receipts: func() (types.Receipts, error) { return p.Receipts, nil }}
	}
	return t, nil
}

// sealedBlock reads sealed block n, at most the request's head. The head is
// the sequencer's own block, whose senders are known; older ones come from
// the chain's cache of recent blocks.
func (e *Explorer) sealedBlock(r *request, n uint64) (txBlock, error) {
	b := r.snap.Head
	if n != b.NumberU64() {
		if b = e.deps.Chain.BlockChain().GetBlockByNumber(n); b == nil {
			return txBlock{}, fmt.Errorf("block %d missing", n)
		}
	}
	read := func() (types.Receipts, error) {
		if len(b.Transactions()) == 0 {
			return nil, nil
		}
		// Raw receipts: status, gas and logs are all a page needs; the
		// derived fields would cost a sender recovery per transaction.
		rs := e.deps.Chain.BlockChain().GetRawReceipts(b.Hash(), n)
		if len(rs) != len(b.Transactions()) {
			return nil, fmt.Errorf("block %d: %d receipts for %d transactions", n, len(rs), len(b.Transactions()))
		}
		return rs, nil
	}
	return txBlock{header: b.Header(), txs: b.Transactions(), receipts: read}, nil
}

// blocks is the trail's blocks, newest first.
func (t trail) blocks() []txBlock {
	if t.pending == nil {
		return t.sealed
	}
	return append([]txBlock{*t.pending}, t.sealed...)
}

// unindexedOf collects addr's entries in the trail's blocks: at most keep
// transactions and keep transfers older than before, and the counts of all
// the sealed ones.
func (e *Explorer) unindexedOf(t trail, addr common.Address, before index.Cursor, keep int) (*unindexed, error) {
	u := &unindexed{addr: addr, before: before, keep: keep, complete: t.complete}
	for _, b := range t.blocks() {
		if err := e.scanBlock(u, b); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// scanBlock adds addr's transactions and transfers in b, newest first. The
// receipts are read only when a transaction involves addr or the block's
// bloom says it may have logged a transfer from or to it.
func (e *Explorer) scanBlock(u *unindexed, b txBlock) error {
	signer := types.MakeSigner(e.deps.Chain.Config(), b.header.Number, b.header.Time)
	var receipts types.Receipts
	var logStart []uint32 // the block-wide index of each receipt's first log
	load := func() error {
		if receipts != nil || len(b.txs) == 0 {
			return nil
		}
		var err error
		if receipts, err = b.receipts(); err != nil {
			return err
		}
		logStart = logStarts(receipts)
		return nil
	}
	if b.pre || mayTransfer(b.header.Bloom, u.addr) {
		if err := load(); err != nil {
			return err
		}
	}
	for i := len(b.txs) - 1; i >= 0; i-- {
		tx := b.txs[i]
		from, err := types.Sender(signer, tx)
		if err != nil {
			return fmt.Errorf("block %d transaction %d: %w", b.header.Number, i, err)
		}
		if receipts != nil {
			u.addTransfers(b, tx, i, receipts[i], logStart[i])
		}
		if !involves(u.addr, from, tx) {
			continue
		}
		if err := load(); err != nil {
			return err
		}
		u.addTx(b, tx, i, from, receipts)
	}
	return nil
}

// involves reports whether tx is from addr, to it, or created it.
func involves(addr, from common.Address, tx *types.Transaction) bool {
	switch to := tx.To(); {
	case from == addr:
		return true
	case to != nil:
		return *to == addr
	default:
		return crypto.CreateAddress(from, tx.Nonce()) == addr
	}
}

// mayTransfer reports whether a block whose logs have bloom may hold an
// ERC-20 Transfer from or to addr (a topic of its own), or of the token at
// addr (the log's address).
func mayTransfer(bloom types.Bloom, addr common.Address) bool {
	return types.BloomLookup(bloom, transferTopic) &&
		(types.BloomLookup(bloom, common.BytesToHash(addr[:])) || types.BloomLookup(bloom, addr))
}

func logStarts(receipts types.Receipts) []uint32 {
	starts := make([]uint32, len(receipts))
	var n uint32
	for i, r := range receipts {
		starts[i] = n
		n += uint32(len(r.Logs))
	}
	return starts
}

func (u *unindexed) addTx(b txBlock, tx *types.Transaction, i int, from common.Address, receipts types.Receipts) {
	if !b.pre {
		u.sealedTxs++
	}
	pos := index.Cursor{Block: b.header.Number.Uint64(), Index: uint32(i)}
	if len(u.txs) >= u.keep || !olderThan(pos, u.before) {
		return
	}
	t := index.Tx{
		Block: pos.Block, Index: pos.Index, Time: b.header.Time, Hash: tx.Hash(), From: from, To: tx.To(),
		Value: tx.Value(), Nonce: tx.Nonce(), Gas: tx.Gas(), InputLen: uint32(len(tx.Data())),
	}
	copy(t.Selector[:], tx.Data())
	if t.To == nil {
		t.Created = crypto.CreateAddress(from, tx.Nonce())
	}
	if r := receipts[i]; r != nil {
		t.Status = uint8(r.Status)
		t.CumulativeGasUsed = r.CumulativeGasUsed
		if i > 0 {
			t.GasUsed = r.CumulativeGasUsed - receipts[i-1].CumulativeGasUsed
		} else {
			t.GasUsed = r.CumulativeGasUsed
		}
	}
	u.txs = append(u.txs, txEntry{Tx: t, Pre: b.pre})
}

// addTransfers adds the ERC-20 Transfers that receipt logged, newest
// first: those from or to the address, and those of the token at it.
func (u *unindexed) addTransfers(b txBlock, tx *types.Transaction, i int, receipt *types.Receipt, first uint32) {
	for j := len(receipt.Logs) - 1; j >= 0; j-- {
		l := receipt.Logs[j]
		if !isTransfer(l) {
			continue
		}
		from, to := common.BytesToAddress(l.Topics[1][:]), common.BytesToAddress(l.Topics[2][:])
		party, emitted := from == u.addr || to == u.addr, l.Address == u.addr
		if !party && !emitted {
			continue
		}
		pos := index.Cursor{Block: b.header.Number.Uint64(), Index: uint32(i), Log: first + uint32(j)}
		entry := transferEntry{Pre: b.pre, Transfer: index.Transfer{
			Block: pos.Block, TxIndex: pos.Index, LogIndex: pos.Log, Time: b.header.Time, TxHash: tx.Hash(),
			Token: l.Address, From: from, To: to, Value: new(big.Int).SetBytes(l.Data),
		}}
		keep := olderThan(pos, u.before)
		if party {
			if !b.pre {
				u.sealedTransfers++
				u.touched(l.Address)
			}
			if keep && len(u.transfers) < u.keep {
				u.transfers = append(u.transfers, entry)
			}
		}
		if emitted {
			if !b.pre {
				u.sealedTokenTransfers++
			}
			if keep && len(u.tokenTransfers) < u.keep {
				u.tokenTransfers = append(u.tokenTransfers, entry)
			}
		}
	}
}

// touched notes a token the address sent or received, at most maxTouched.
func (u *unindexed) touched(token common.Address) {
	for _, t := range u.tokens {
		if t == token {
			return
		}
	}
	if len(u.tokens) < maxTouched {
		u.tokens = append(u.tokens, token)
	}
}

// isTransfer reports whether l is an ERC-20 Transfer (the index's rule:
// three topics and a 32-byte amount; ERC-721's has four).
func isTransfer(l *types.Log) bool {
	return len(l.Topics) == 3 && l.Topics[0] == transferTopic && len(l.Data) == 32
}

// olderThan reports whether pos comes before the cursor before, newest
// first; every position does before the zero cursor.
func olderThan(pos, before index.Cursor) bool {
	if before.IsZero() {
		return true
	}
	return cmp.Or(cmp.Compare(pos.Block, before.Block), cmp.Compare(pos.Index, before.Index), cmp.Compare(pos.Log, before.Log)) < 0
}

// holders returns the addresses that received token in the trail's sealed
// blocks (the zero address, which receives what is burnt, is none), those
// after after only. Pre-confirmed ones are left out: the token page shows
// balances at the head.
func (t trail) holders(token, after common.Address) ([]common.Address, error) {
	var out []common.Address
	for _, b := range t.sealed {
		if !types.BloomLookup(b.header.Bloom, token) {
			continue
		}
		receipts, err := b.receipts()
		if err != nil {
			return nil, err
		}
		for _, r := range receipts {
			for _, l := range r.Logs {
				if l.Address != token || !isTransfer(l) {
					continue
				}
				if to := common.BytesToAddress(l.Topics[2][:]); to != (common.Address{}) && to.Cmp(after) > 0 {
					out = append(out, to)
				}
			}
		}
	}
	return out, nil
}
