package web

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// homeData is the home page.
type homeData struct {
	Head  *types.Header
	Stats stats
	// NextBaseFee is the base fee of the block being built.
	NextBaseFee *big.Int
	Pending     pendingData
	Blocks      []*blockSummary
	Txs         []txRow
	Now         time.Time
	// Size is the lists' length, which the live script keeps.
	Size int
}

// pendingData is the block being built, as pre-confirmed so far.
type pendingData struct {
	// Producing is false when the node produces no blocks (pending is latest).
	Producing bool
	Number    uint64
	Index     int // pre-confirmations of the block so far
	Count     int // its transactions
	Txs       []txRow
}

// txRow is a transaction in a table.
type txRow struct {
	Hash   common.Hash
	Block  uint64
	From   common.Address
	To     *common.Address
	Value  *big.Int
	Method string // decoded method name, if known
	Failed bool
	Fee    *big.Int
	// Pre marks a pre-confirmed transaction (data-preconfirmed).
	Pre bool
}

func (e *Explorer) home(r *request) (result, error) {
	snap := r.snap
	head := snap.HeadHeader.Number.Uint64()
	// The ring may run a block ahead of or behind the snapshot: the page
	// shows the snapshot's head.
	var blocks []*blockSummary
	for _, b := range e.recent.load() {
		if b.Number <= head {
			blocks = append(blocks, b)
		}
	}
	blocks = e.withHead(blocks, head)
	d := homeData{Head: snap.HeadHeader, Stats: computeStats(blocks), NextBaseFee: snap.Pending.Header.BaseFee, Now: r.now, Size: e.cfg.HomeSize}
	blocks = blocks[:min(len(blocks), e.cfg.HomeSize)]
	d.Blocks = blocks
	if len(blocks) > 0 {
		d.Txs = blocks[0].Recent
	}
	d.Pending = e.pendingRows(r)
	return result{page: "home", title: "Explorer", data: d}, nil
}

// withHead puts in front of blocks, the ring's newest first, the blocks up
// to head that it lacks: the ring hears of a block just after the snapshot
// that made it the head is published, and a page rendered in between shows
// that snapshot's head. They are read from the chain, at most a page's
// worth.
func (e *Explorer) withHead(blocks []*blockSummary, head uint64) []*blockSummary {
	from := head + 1 - min(head+1, uint64(e.cfg.HomeSize))
	if len(blocks) > 0 {
		from = max(from, blocks[0].Number+1)
	}
	if from > head {
		return blocks
	}
	prev := []txRow(nil)
	if len(blocks) > 0 {
		prev = blocks[0].Recent
	}
	bc := e.deps.Chain.BlockChain()
	var missed []*blockSummary
	for n := from; n <= head; n++ {
		block := bc.GetBlockByNumber(n)
		if block == nil {
			break
		}
		s := summarize(e.deps.Chain.Config(), block, time.Now(), e.cfg.HomeSize, e.decoder.methodName)
		s.Recent = recentRows(s.Last, prev, e.cfg.HomeSize)
		prev = s.Recent
		missed = append([]*blockSummary{s}, missed...)
	}
	return append(missed, blocks...)
}

// homeFragmentPath serves the parts of the home page that follow the chain
// (the template "live" of home.html): the home page's script asks for them
// whenever the WebSocket says the chain moved, and brings the page up to
// date with them. Every block the lists miss is in the next answer, and
// all the pages following the chain ask the same URL, which the page
// cache answers once per snapshot.
const homeFragmentPath = "/fragment/home"

func (e *Explorer) homeFragment(r *request) (result, error) {
	res, err := e.home(r)
	res.fragment = "live"
	return res, err
}

// pendingRows lists the pre-confirmed transactions of the block being
// built, newest first.
func (e *Explorer) pendingRows(r *request) pendingData {
	p := r.snap.Pending
	d := pendingData{Number: p.Header.Number.Uint64(), Index: p.Index, Count: len(p.Transactions)}
	d.Producing = d.Number > r.snap.HeadHeader.Number.Uint64()
	if !d.Producing {
		return d
	}
	signer := types.MakeSigner(e.deps.Chain.Config(), p.Header.Number, p.Header.Time)
	for i := len(p.Transactions) - 1; i >= 0 && len(d.Txs) < e.cfg.HomeSize; i-- {
		row := e.row(signer, p.Transactions[i], p.Receipts[i], d.Number, p.Header.BaseFee)
		row.Pre = true
		d.Txs = append(d.Txs, row)
	}
	return d
}

// row makes the table row of a transaction with its receipt.
func (e *Explorer) row(signer types.Signer, tx *types.Transaction, receipt *types.Receipt, block uint64, baseFee *big.Int) txRow {
	from, _ := types.Sender(signer, tx)
	row := txRow{Hash: tx.Hash(), Block: block, From: from, To: tx.To(), Value: tx.Value(), Method: e.decoder.methodName(tx.Data())}
	if receipt != nil {
		row.Failed = receipt.Status != types.ReceiptStatusSuccessful
		row.Fee = new(big.Int).Mul(new(big.Int).SetUint64(receipt.GasUsed), effectivePrice(tx, baseFee))
	}
	return row
}

// effectivePrice is what a transaction paid per gas: min(tip + base fee,
// fee cap), the gas price before London.
func effectivePrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasPrice()
	}
	price := new(big.Int).Add(tx.EffectiveGasTipValue(baseFee), baseFee)
	if tx.GasFeeCapIntCmp(price) < 0 {
		return new(big.Int).Set(tx.GasFeeCap())
	}
	return price
}
