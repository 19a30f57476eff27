package index

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"runtime"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/node/chain"
)

// synth is a chain of blocks and receipts made without an EVM, for tests
// of reads and for benchmarks: the index is a function of blocks and
// receipts alone. It is the index's source, as the node's chain is.
type synth struct {
	tb       testing.TB
	config   *params.ChainConfig
	keys     []*ecdsa.PrivateKey
	nonces   []uint64
	blocks   []*types.Block
	receipts []types.Receipts
}

// newSynth makes a chain of a genesis and keys senders.
func newSynth(tb testing.TB, keys int) *synth {
	tb.Helper()
	s := &synth{tb: tb, config: chain.PreviewConfig(), nonces: make([]uint64, keys)}
	for range keys {
		k, err := crypto.GenerateKey()
		if err != nil {
			tb.Fatal(err)
		}
		s.keys = append(s.keys, k)
	}
	genesis := &types.Header{Number: new(big.Int), Time: 1_700_000_000, GasLimit: 30_000_000, BaseFee: big.NewInt(params.GWei)}
	s.blocks, s.receipts = []*types.Block{types.NewBlockWithHeader(genesis)}, []types.Receipts{nil}
	return s
}

// index opens an index of s on fs (nil: dir on disk) and catches up.
func (s *synth) index(fs vfs.FS, dir string) *Index {
	s.tb.Helper()
	x, err := open(Config{Dir: dir}, fs, s, quietLog())
	if err != nil {
		s.tb.Fatal(err)
	}
	s.tb.Cleanup(func() { x.Close() })
	if err := x.catchUp(context.Background()); err != nil {
		s.tb.Fatal(err)
	}
	return x
}

func (s *synth) Config() *params.ChainConfig { return s.config }

func (s *synth) CurrentBlock() *types.Header { return s.blocks[len(s.blocks)-1].Header() }

func (s *synth) GetCanonicalHash(n uint64) common.Hash {
	if n >= uint64(len(s.blocks)) {
		return common.Hash{}
	}
	return s.blocks[n].Hash()
}

func (s *synth) GetHeaderByNumber(n uint64) *types.Header {
	if n >= uint64(len(s.blocks)) {
		return nil
	}
	return s.blocks[n].Header()
}

func (s *synth) GetBlock(hash common.Hash, n uint64) *types.Block {
	if n >= uint64(len(s.blocks)) || s.blocks[n].Hash() != hash {
		return nil
	}
	return s.blocks[n]
}

func (s *synth) GetRawReceipts(hash common.Hash, n uint64) types.Receipts {
	if s.GetBlock(hash, n) == nil {
		return nil
	}
	return s.receipts[n]
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

// add makes the next block of specs, its transactions signed (on every
// core) with their senders cached, as a sealed block's are.
func (s *synth) add(specs ...spec) {
	parent := s.blocks[len(s.blocks)-1].Header()
	header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1),
		Time: parent.Time + 1, GasLimit: parent.GasLimit, BaseFee: parent.BaseFee}
	signer := types.MakeSigner(s.config, header.Number, header.Time)
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
	s.blocks = append(s.blocks, types.NewBlockWithHeader(header).WithBody(types.Body{Transactions: txs}))
	s.receipts = append(s.receipts, receipts)
}

func (s *synth) sign(signer types.Signer, sp spec, nonce uint64) *types.Transaction {
	tx, err := types.SignNewTx(s.keys[sp.from], signer, &types.DynamicFeeTx{ChainID: s.config.ChainID, Nonce: nonce,
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
