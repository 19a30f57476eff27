package sequencer

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/txorder"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
)

// maxBlockSize keeps a built block under the protocol's size cap with room
// for the header and withdrawals (as geth's miner does).
const maxBlockSize = params.MaxBlockSize - 1_000_000

// builder is the block being built: opened on a parent, filled at every
// pre-confirmation tick, sealed at the block boundary. Only the sequencer
// goroutine touches it.
type builder struct {
	chain    *chain.Chain
	parent   *types.Block
	header   *types.Header
	state    *state.StateDB
	evm      *vm.EVM
	gasPool  *core.GasPool
	signer   types.Signer
	txs      []*types.Transaction
	receipts []*types.Receipt
	size     uint64

	ticks   int              // pre-confirmations published
	logged  int              // transactions given to the journal
	touched *pending.Touched // changed since the last published layer
	layer   *pending.Layer   // pending state as of the last tick
	base    state.Reader     // state of parent
	// filledAt is when the last pre-confirmation that executed
	// transactions took them from the pool: the eager gap runs from it.
	filledAt time.Time

	// parentCommit is parent's commit to the database while it runs
	// (pipeline.go): until it ends, nothing built on parent is published,
	// and the pre-confirmations made meanwhile wait in unpublished.
	parentCommit *commitment
	unpublished  []unpublished
}

// openBlock starts a block on parent at the given timestamp (clamped to the
// parent's: blocks may share a second) and runs the pre-execution system
// calls (EIP-4788 beacon root, EIP-2935 parent hash). parentState reads
// parent's state; nil reads it from the database.
func openBlock(c *chain.Chain, parent *types.Block, parentState state.Reader, timestamp uint64, coinbase common.Address, gasCeil uint64) (*builder, error) {
	header, err := nextHeader(c, parent, timestamp, coinbase, gasCeil)
	if err != nil {
		return nil, err
	}
	return newBuilderOver(c, parent, header, parentState)
}

// nextHeader is the header of the block this sequencer opens on parent at
// timestamp (never before the parent's), with a fresh prevrandao.
func nextHeader(c *chain.Chain, parent *types.Block, timestamp uint64, coinbase common.Address, gasCeil uint64) (*types.Header, error) {
	config := c.Config()
	ph := parent.Header()
	header := &types.Header{
		ParentHash: ph.Hash(),
		Number:     new(big.Int).Add(ph.Number, common.Big1),
		GasLimit:   core.CalcGasLimit(ph.GasLimit, gasCeil),
		Time:       max(timestamp, ph.Time),
		Coinbase:   coinbase,
		Extra:      []byte("stocknode"),
	}
	if _, err := rand.Read(header.MixDigest[:]); err != nil {
		return nil, fmt.Errorf("prevrandao: %w", err)
	}
	if config.IsLondon(header.Number) {
		header.BaseFee = c.Engine().CalcBaseFee(config, ph)
	}
	if err := c.Engine().Prepare(newParentChain(c.BlockChain(), ph), header); err != nil {
		return nil, fmt.Errorf("prepare header: %w", err)
	}
	if config.IsCancun(header.Number, header.Time) {
		var excess uint64
		if config.IsCancun(ph.Number, ph.Time) {
			excess = eip4844.CalcExcessBlobGas(config, ph, header.Time)
		}
		header.BlobGasUsed = new(uint64)
		header.ExcessBlobGas = &excess
		header.ParentBeaconRoot = new(common.Hash) // no beacon chain: the zero root, as geth's dev mode
	}
	return header, nil
}

// newBuilder starts building the block of header on parent: a new block
// (openBlock), or the one a previous run opened, resumed from the log
// with its logged header.
func newBuilder(c *chain.Chain, parent *types.Block, header *types.Header) (*builder, error) {
	return newBuilderOver(c, parent, header, nil)
}

// newBuilderOver is newBuilder with parent's state read by parentState,
// or from the database when it is nil: a sequencer opens the next block on
// the state of the one it sealed while the database is still committing
// it (pipeline.go).
func newBuilderOver(c *chain.Chain, parent *types.Block, header *types.Header, parentState state.Reader) (*builder, error) {
	config := c.Config()
	ph := parent.Header()
	base := parentState
	if base == nil {
		stateReader, err := c.StateReader(ph.Root)
		if err != nil {
			return nil, fmt.Errorf("state of block %d: %w", ph.Number, err)
		}
		// The parent's state is read by this block's builder and, once the
		// parent is the head, by every latest and pending request: cache it.
		base = pending.NewCachedReader(stateReader)
	}
	st, err := state.NewWithReader(ph.Root, c.StateDatabase(), base)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", ph.Number, err)
	}
	b := &builder{
		chain:   c,
		parent:  parent,
		header:  header,
		state:   st,
		gasPool: core.NewGasPool(header.GasLimit),
		signer:  types.MakeSigner(config, header.Number, header.Time),
		size:    uint64(header.Size()),
		touched: pending.NewTouched(),
		base:    base,
	}
	hooked := state.NewHookedState(st, b.hooks())
	coinbase := header.Coinbase
	b.evm = vm.NewEVM(core.NewEVMBlockContext(header, newParentChain(c.BlockChain(), ph), &coinbase), hooked, config, vm.Config{})
	core.PreExecution(context.Background(), header.ParentBeaconRoot, ph, config, b.evm, header.Number, header.Time)
	return b, nil
}

// hooks record what the EVM changes, so each tick's pending layer holds
// exactly the touched accounts and slots.
func (b *builder) hooks() *tracing.Hooks {
	return &tracing.Hooks{
		OnBalanceChange: func(addr common.Address, _, _ *big.Int, _ tracing.BalanceChangeReason) {
			b.touched.Account(addr)
		},
		OnNonceChangeV2: func(addr common.Address, _, _ uint64, _ tracing.NonceChangeReason) {
			b.touched.Account(addr)
		},
		OnCodeChangeV2: func(addr common.Address, _ common.Hash, _ []byte, _ common.Hash, code []byte, _ tracing.CodeChangeReason) {
			b.touched.Code(addr, code)
		},
		OnStorageChange: func(addr common.Address, slot common.Hash, _, _ common.Hash) {
			b.touched.Slot(addr, slot)
		},
	}
}

// fill executes the pool's executable transactions that are not in the block
// yet, best price first, until the block is full. It returns how many were
// included.
func (b *builder) fill(executable map[common.Address][]*gethpool.LazyTransaction) int {
	for addr, txs := range executable {
		next := b.state.GetNonce(addr)
		for len(txs) > 0 && txs[0].Tx.Nonce() < next {
			txs = txs[1:]
		}
		if len(txs) == 0 {
			delete(executable, addr)
		} else {
			executable[addr] = txs
		}
	}
	if len(executable) == 0 {
		return 0
	}
	ordered := txorder.NewTransactionsByPriceAndNonce(b.signer, executable, b.header.BaseFee)
	included := 0
	for {
		if b.gasPool.Available(false) < params.TxGas {
			return included
		}
		ltx, _ := ordered.Peek()
		if ltx == nil {
			return included
		}
		if b.gasPool.Available(false) < ltx.Gas {
			ordered.Pop()
			continue
		}
		tx := ltx.Resolve()
		if tx == nil {
			ordered.Pop()
			continue
		}
		if b.size+tx.Size() >= maxBlockSize {
			return included
		}
		err := b.apply(tx)
		switch {
		case err == nil:
			included++
			ordered.Shift()
		case errors.Is(err, core.ErrNonceTooLow):
			ordered.Shift()
		default:
			// The sender's later transactions cannot run either (nonce gap).
			ordered.Pop()
		}
	}
}

// apply runs one transaction; on failure the state and gas pool are restored.
func (b *builder) apply(tx *types.Transaction) error {
	snap, gp := b.state.Snapshot(), b.gasPool.Snapshot()
	b.state.SetTxContext(tx.Hash(), len(b.txs), uint32(len(b.txs)+1))
	receipt, _, err := core.ApplyTransaction(context.Background(), b.evm, b.gasPool, b.state, b.header, tx)
	if err != nil {
		b.state.RevertToSnapshot(snap)
		b.gasPool.Set(gp)
		return err
	}
	b.header.GasUsed = b.gasPool.Used()
	b.txs = append(b.txs, tx)
	b.receipts = append(b.receipts, receipt)
	b.size += tx.Size()
	return nil
}

// preconfirm captures what changed since the last tick as a new pending
// layer and returns the pending block as of now.
func (b *builder) preconfirm() (*pending.Block, state.Reader) {
	if !b.touched.Empty() || b.layer == nil {
		b.layer = pending.NewLayer(b.base, b.layer, pending.Capture(b.state, b.touched))
		b.touched = pending.NewTouched()
	}
	n := len(b.txs)
	block := &pending.Block{
		Index:        b.ticks,
		Header:       types.CopyHeader(b.header),
		Transactions: b.txs[:n:n],
		Receipts:     b.receipts[:n:n],
	}
	b.ticks++
	return block, b.layer
}

// hashAhead brings the state's tries up to date with what the block has
// executed so far, so that the seal hashes only what came after. The
// sequencer calls it once a pre-confirmation is published, in the time
// before the next one: under load that takes most of the state root off
// the seal, during which no transaction can be pre-confirmed.
func (b *builder) hashAhead() {
	if b.parentCommit != nil {
		return // the tries open on the parent's root, which the database does not hold yet
	}
	b.state.IntermediateRoot(b.evm.GetRules())
}

// seal runs the post-execution system calls (EIP-7002/7251 queues, EIP-6110
// deposits), finalizes and assembles the block.
func (b *builder) seal() (*types.Block, error) {
	config := b.chain.Config()
	var logs []*types.Log
	for _, r := range b.receipts {
		logs = append(logs, r.Logs...)
	}
	body := types.Body{Transactions: b.txs}
	if config.IsShanghai(b.header.Number, b.header.Time) {
		body.Withdrawals = make([]*types.Withdrawal, 0)
	}
	requests, _, err := core.PostExecution(context.Background(), config, b.header.Number, b.header.Time, logs, body.Withdrawals, b.evm, uint32(len(b.txs)+1))
	if err != nil {
		return nil, fmt.Errorf("post-execution: %w", err)
	}
	if requests != nil {
		hash := types.CalcRequestsHash(requests)
		b.header.RequestsHash = &hash
	}
	b.chain.Engine().Finalize(b.chain.BlockChain(), b.header, b.state, &body)
	block := core.AssembleBlock(b.chain.BlockChain(), b.header, b.state, &body, b.receipts, nil)
	if err := b.state.Error(); err != nil {
		return nil, fmt.Errorf("state read failed while building block: %w", err)
	}
	return block, nil
}
