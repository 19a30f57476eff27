package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// transferTopic is topic0 of the ERC-20 (and ERC-721) Transfer event; an
// ERC-20 transfer has three topics and a 32-byte amount, an ERC-721 four.
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// errDiverged reports a block that does not extend the indexed chain.
var errDiverged = errors.New("the chain diverged from the index")

// apply indexes block, whose receipts are receipts (raw receipts will do:
// apply derives what it needs), as one batch with the marker. A block
// indexed already is skipped, so applying it again doubles nothing.
func (x *Index) apply(block *types.Block, receipts types.Receipts) error {
	n, m := block.NumberU64(), x.marker
	var want uint64 // the genesis first
	if m.ok {
		want = m.number + 1
	}
	switch {
	case m.ok && n <= m.number:
		return nil
	case n != want:
		return fmt.Errorf("block %d: the index takes block %d next", n, want)
	case m.ok && block.ParentHash() != m.hash:
		return fmt.Errorf("%w: block %d's parent is %s, the indexed block %d is %s", errDiverged, n, block.ParentHash(), m.number, m.hash)
	case len(receipts) != len(block.Transactions()):
		return fmt.Errorf("block %d has %d transactions and %d receipts", n, len(block.Transactions()), len(receipts))
	}
	if err := x.acquire(); err != nil {
		return err
	}
	defer x.release()
	batch := x.db.NewBatch()
	defer batch.Close()
	if err := x.writeBlock(batch, block, receipts); err != nil {
		return err
	}
	if err := batch.Set(markerKey, appendMarker(nil, n, block.Hash()), nil); err != nil {
		return err
	}
	// NoSync: a crash, of the process or of the machine, may lose the
	// newest batches, but pebble's log replays as a prefix and each
	// batch holds its block's marker, so the index reopens at the last
	// whole block it kept and indexes the rest again. Syncing every block
	// would add an fsync per 200 ms for nothing the chain cannot rebuild.
	if err := x.db.Apply(batch, pebble.NoSync); err != nil {
		return fmt.Errorf("write block %d to the address index: %w", n, err)
	}
	x.marker = marker{number: n, hash: block.Hash(), ok: true}
	x.next.Store(n + 1)
	return nil
}

// writeBlock adds block's entries to batch.
func (x *Index) writeBlock(batch *pebble.Batch, block *types.Block, receipts types.Receipts) error {
	if len(receipts) == 0 {
		return nil
	}
	w := &blockWriter{batch: batch, block: block.NumberU64(), time: block.Time(),
		counts: map[common.Address]*Counts{}, pairs: map[[pairKeyLen]byte]bool{}}
	signer := types.MakeSigner(x.config, block.Number(), block.Time())
	baseFee := block.BaseFee()
	var prevGas uint64
	var logIndex uint32
	for i, tx := range block.Transactions() {
		from, err := types.Sender(signer, tx)
		if err != nil {
			return fmt.Errorf("block %d transaction %d: %w", w.block, i, err)
		}
		r := receipts[i]
		t := Tx{
			Block: w.block, Index: uint32(i), Time: w.time, Hash: tx.Hash(), From: from, To: tx.To(),
			Value: tx.Value(), Status: uint8(r.Status), GasUsed: r.CumulativeGasUsed - prevGas,
			Nonce: tx.Nonce(), Gas: tx.Gas(), GasPrice: effectivePrice(tx, baseFee),
			CumulativeGasUsed: r.CumulativeGasUsed, InputLen: uint32(len(tx.Data())),
		}
		copy(t.Selector[:], tx.Data())
		if t.To == nil {
			t.Created = crypto.CreateAddress(from, tx.Nonce())
		}
		prevGas = r.CumulativeGasUsed
		if err := w.tx(&t, tx.Data()); err != nil {
			return err
		}
		for _, l := range r.Logs {
			if isTransfer(l) {
				if err := w.transfer(&t, l, logIndex); err != nil {
					return err
				}
			}
			logIndex++
		}
	}
	if err := w.flushCounts(x.db); err != nil {
		return err
	}
	hash := block.Hash()
	return batch.Set(blockKey(w.block), hash[:], nil)
}

func isTransfer(l *types.Log) bool {
	return len(l.Topics) == 3 && l.Topics[0] == transferTopic && len(l.Data) == 32
}

// effectivePrice is what the transaction paid per gas, as its receipt's
// effectiveGasPrice says.
func effectivePrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasPrice()
	}
	price := new(big.Int).Add(tx.GasTipCap(), baseFee)
	if price.Cmp(tx.GasFeeCap()) > 0 {
		price.Set(tx.GasFeeCap())
	}
	return price
}

// blockWriter collects one block's entries.
type blockWriter struct {
	batch  *pebble.Batch
	block  uint64
	time   uint64
	counts map[common.Address]*Counts
	pairs  map[[pairKeyLen]byte]bool // the holder and holding keys set in this block
	buf    []byte
}

// tx indexes t under each address it involves, once per address.
func (w *blockWriter) tx(t *Tx, input []byte) error {
	w.buf = appendTx(w.buf[:0], t)
	other := t.Created
	if t.To != nil {
		other = *t.To
	}
	for i, addr := range [2]common.Address{t.From, other} {
		if i == 1 && addr == t.From {
			break // a transaction to oneself
		}
		if err := w.batch.Set(txKey(addr, t.Block, t.Index), w.buf, nil); err != nil {
			return err
		}
		w.count(addr).Txs++
	}
	if len(input) == 0 {
		return nil
	}
	return w.batch.Set(inputKey(t.Block, t.Index), input, nil)
}

// transfer indexes the ERC-20 Transfer log l of transaction t.
func (w *blockWriter) transfer(t *Tx, l *types.Log, logIndex uint32) error {
	tr := Transfer{
		Block: t.Block, TxIndex: t.Index, LogIndex: logIndex, Time: t.Time, TxHash: t.Hash,
		Token: l.Address, From: common.BytesToAddress(l.Topics[1][:]), To: common.BytesToAddress(l.Topics[2][:]),
		Value: new(big.Int).SetBytes(l.Data), Nonce: t.Nonce, Gas: t.Gas, GasPrice: t.GasPrice,
		GasUsed: t.GasUsed, CumulativeGasUsed: t.CumulativeGasUsed,
	}
	w.buf = appendTransfer(w.buf[:0], &tr)
	for i, addr := range [2]common.Address{tr.From, tr.To} {
		if i == 1 && addr == tr.From {
			break
		}
		if err := w.batch.Set(transferKey(addr, tr.Block, tr.TxIndex, tr.LogIndex), w.buf, nil); err != nil {
			return err
		}
		if err := w.batch.Set(byTokenKey(addr, tr.Token, tr.Block, tr.TxIndex, tr.LogIndex), nil, nil); err != nil {
			return err
		}
		if err := w.pair(tableHolding, addr, tr.Token); err != nil {
			return err
		}
		w.count(addr).Transfers++
	}
	if err := w.batch.Set(emittedKey(tr.Token, tr.Block, tr.TxIndex, tr.LogIndex), w.buf, nil); err != nil {
		return err
	}
	w.count(tr.Token).TokenTransfers++
	// The zero address receives what is burnt; it holds nothing.
	if tr.To == (common.Address{}) {
		return nil
	}
	return w.pair(tableHolder, tr.Token, tr.To)
}

// pair sets a holder or holding key, once per block.
func (w *blockWriter) pair(table byte, a, b common.Address) error {
	var k [pairKeyLen]byte
	k[0] = table
	copy(k[1:], a[:])
	copy(k[1+addrLen:], b[:])
	if w.pairs[k] {
		return nil
	}
	w.pairs[k] = true
	return w.batch.Set(k[:], nil, nil)
}

func (w *blockWriter) count(addr common.Address) *Counts {
	c := w.counts[addr]
	if c == nil {
		c = new(Counts)
		w.counts[addr] = c
	}
	return c
}

// flushCounts adds the block's counts to the stored ones. The writer is
// the only one to change them, so reading them outside the batch is safe.
func (w *blockWriter) flushCounts(db pebble.Reader) error {
	for addr, add := range w.counts {
		key := prefixKey(tableCount, addr)
		c, err := readCounts(db, key)
		if err != nil {
			return err
		}
		c.Txs += add.Txs
		c.Transfers += add.Transfers
		c.TokenTransfers += add.TokenTransfers
		if err := w.batch.Set(key, appendCounts(nil, c), nil); err != nil {
			return err
		}
	}
	return nil
}

func appendCounts(dst []byte, c Counts) []byte {
	dst = binary.BigEndian.AppendUint64(dst, c.Txs)
	dst = binary.BigEndian.AppendUint64(dst, c.Transfers)
	return binary.BigEndian.AppendUint64(dst, c.TokenTransfers)
}

func readCounts(db pebble.Reader, key []byte) (Counts, error) {
	v, closer, err := db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return Counts{}, nil
	}
	if err != nil {
		return Counts{}, fmt.Errorf("read counts: %w", err)
	}
	defer closer.Close()
	if len(v) != 24 {
		return Counts{}, fmt.Errorf("counts: %w", errCorrupt)
	}
	return Counts{Txs: binary.BigEndian.Uint64(v), Transfers: binary.BigEndian.Uint64(v[8:]), TokenTransfers: binary.BigEndian.Uint64(v[16:])}, nil
}
