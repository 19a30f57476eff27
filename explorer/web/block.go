package web

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
)

// blockData is the block page.
type blockData struct {
	Header        *types.Header
	Hash          string
	TxCount       int
	Size          uint64
	Confirmations uint64
	Txs           []txRow
	Pager         pager
}

// pager is one page of a list read by offset (a block's transactions, the
// token list): lists that never change once written.
type pager struct {
	Start, Size, Total int
}

func (p pager) End() int      { return min(p.Start+p.Size, p.Total) }
func (p pager) HasPrev() bool { return p.Start > 0 }
func (p pager) Prev() int     { return max(0, p.Start-p.Size) }
func (p pager) HasNext() bool { return p.Start+p.Size < p.Total }
func (p pager) Next() int     { return p.Start + p.Size }

// newPager bounds start to the list.
func newPager(start, size, total int) (pager, error) {
	if start > 0 && start >= total {
		return pager{}, notFound("The list has %s; there is nothing from entry %d on.", plural(total, "entry", "entries"), start)
	}
	return pager{Start: start, Size: size, Total: total}, nil
}

func (e *Explorer) block(r *request) (result, error) {
	id, err := segment(r, "/block/")
	if err != nil {
		return result{}, err
	}
	b, err := e.findBlock(r.snap, id)
	if err != nil {
		return result{}, err
	}
	from, err := start(r)
	if err != nil {
		return result{}, err
	}
	txs := b.Transactions()
	pg, err := newPager(from, e.cfg.PageSize, len(txs))
	if err != nil {
		return result{}, err
	}
	d := blockData{
		Header: b.Header(), Hash: b.Hash().Hex(), TxCount: len(txs), Size: b.Size(),
		Confirmations: r.snap.Head.NumberU64() - b.NumberU64() + 1, Pager: pg,
	}
	if len(txs) > 0 {
		// One read of the block's receipts, bounded by its gas limit.
		receipts := e.deps.Chain.BlockChain().GetReceiptsByHash(b.Hash())
		if len(receipts) != len(txs) {
			return result{}, fmt.Errorf("block %d: %d receipts for %d transactions", b.NumberU64(), len(receipts), len(txs))
		}
		signer := types.MakeSigner(e.deps.Chain.Config(), b.Number(), b.Time())
		for i := pg.Start; i < pg.End(); i++ {
			d.Txs = append(d.Txs, e.row(signer, txs[i], receipts[i], b.NumberU64(), b.BaseFee()))
		}
	}
	return result{page: "block", title: fmt.Sprintf("Block %d", b.NumberU64()), data: d}, nil
}

// burnt is the base fee's part of a fee: burnt, not paid to the sequencer.
func burnt(gasUsed uint64, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return new(big.Int)
	}
	return new(big.Int).Mul(new(big.Int).SetUint64(gasUsed), baseFee)
}
