package index

import (
	"crypto/ecdsa"
	"math/big"
	"runtime"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// synth makes blocks and receipts without an EVM, for tests of reads and
// for benchmarks: the index is a function of blocks and receipts alone.
type synth struct {
	tb     testing.TB
	x      *Index
	keys   []*ecdsa.PrivateKey
	nonces []uint64
	parent *types.Header
}

// newSynth indexes a synthetic genesis into x, which must be empty, and
// makes keys senders.
func newSynth(tb testing.TB, x *Index, keys int) *synth {
	tb.Helper()
	s := &synth{tb: tb, x: x, nonces: make([]uint64, keys)}
	for range keys {
		k, err := crypto.GenerateKey()
		if err != nil {
			tb.Fatal(err)
		}
		s.keys = append(s.keys, k)
	}
	genesis := &types.Header{Number: new(big.Int), Time: 1_700_000_000, GasLimit: 30_000_000, BaseFee: big.NewInt(params.GWei)}
	s.parent = genesis
	if err := x.apply(types.NewBlockWithHeader(genesis), nil); err != nil {
		tb.Fatal(err)
	}
	return s
}

func (s *synth) addr(key int) common.Address { return addrOf(s.keys[key]) }

// spec is one synthetic transaction: its sender's key, its recipient (nil
// for a creation) and the logs its receipt holds.
type spec struct {
	from int
	to   *common.Address
	logs []*types.Log
}

func transferLog(token, from, to common.Address, amount int64) *types.Log {
	return &types.Log{Address: token, Topics: []common.Hash{transferTopic, common.BytesToHash(from[:]), common.BytesToHash(to[:])},
		Data: common.LeftPadBytes(big.NewInt(amount).Bytes(), 32)}
}

// add makes the next block of specs and indexes it.
func (s *synth) add(specs ...spec) {
	s.tb.Helper()
	block, receipts := s.block(specs)
	if err := s.x.apply(block, receipts); err != nil {
		s.tb.Fatal(err)
	}
}

// block makes the next block of specs, its transactions signed (on every
// core) with their senders cached, as a sealed block's are.
func (s *synth) block(specs []spec) (*types.Block, types.Receipts) {
	header := &types.Header{ParentHash: s.parent.Hash(), Number: new(big.Int).Add(s.parent.Number, common.Big1),
		Time: s.parent.Time + 1, GasLimit: s.parent.GasLimit, BaseFee: s.parent.BaseFee}
	signer := types.MakeSigner(s.x.config, header.Number, header.Time)
	txs := make([]*types.Transaction, len(specs))
	nonces := make([]uint64, len(specs))
	for i, sp := range specs {
		nonces[i] = s.nonces[sp.from]
		s.nonces[sp.from]++
	}
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(specs); i += workers {
				txs[i] = s.sign(signer, specs[i], nonces[i])
			}
		})
	}
	wg.Wait()
	receipts := make(types.Receipts, len(specs))
	var gas uint64
	for i, sp := range specs {
		gas += params.TxGas
		receipts[i] = &types.Receipt{Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: gas, Logs: sp.logs}
	}
	header.GasUsed = gas
	s.parent = header
	return types.NewBlockWithHeader(header).WithBody(types.Body{Transactions: txs}), receipts
}

func (s *synth) sign(signer types.Signer, sp spec, nonce uint64) *types.Transaction {
	tx, err := types.SignNewTx(s.keys[sp.from], signer, &types.DynamicFeeTx{ChainID: s.x.config.ChainID, Nonce: nonce,
		GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: sp.to, Value: big.NewInt(1)})
	if err != nil {
		s.tb.Error(err)
		return nil
	}
	if _, err := types.Sender(signer, tx); err != nil {
		s.tb.Error(err)
	}
	return tx
}
