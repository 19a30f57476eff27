package rpc

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
	"github.com/ethereum/go-ethereum/eth/gasprice"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// forkChain is a chain that turns Cancun on at its block 3 (blocks are 10 s
// apart from a genesis at time 0), with transfers of several tips in every
// block and a blob transaction in block 4.
func forkChain(t *testing.T) (*core.Genesis, []*types.Block) {
	t.Helper()
	cancun := uint64(30)
	config := &params.ChainConfig{
		ChainID: big.NewInt(1337), HomesteadBlock: common.Big0, EIP150Block: common.Big0, EIP155Block: common.Big0,
		EIP158Block: common.Big0, ByzantiumBlock: common.Big0, ConstantinopleBlock: common.Big0, PetersburgBlock: common.Big0,
		IstanbulBlock: common.Big0, MuirGlacierBlock: common.Big0, BerlinBlock: common.Big0, LondonBlock: common.Big0,
		ArrowGlacierBlock: common.Big0, GrayGlacierBlock: common.Big0, MergeNetsplitBlock: common.Big0,
		TerminalTotalDifficulty: common.Big0, ShanghaiTime: new(uint64), CancunTime: &cancun,
		BlobScheduleConfig: &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig},
	}
	key, _ := crypto.ToECDSA(crypto.Keccak256([]byte("stocknode fee history")))
	from := crypto.PubkeyToAddress(key.PublicKey)
	alloc := types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))}}
	alloc[params.BeaconRootsAddress] = core.SystemContractAllocs()[params.BeaconRootsAddress]
	genesis := &core.Genesis{Config: config, GasLimit: 30_000_000, BaseFee: big.NewInt(params.InitialBaseFee), Alloc: alloc}
	to := common.HexToAddress("0xdead")
	commitment := kzg4844.Commitment{0xc0} // the zero blob's
	blobHash := kzg4844.CalcBlobHashV1(sha256.New(), &commitment)
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), 6, func(i int, b *core.BlockGen) {
		for tip := int64(1); tip <= 3; tip++ {
			b.AddTx(types.MustSignNewTx(key, b.Signer(), &types.DynamicFeeTx{
				ChainID: config.ChainID, Nonce: b.TxNonce(from), GasTipCap: big.NewInt(tip * params.GWei),
				GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas + uint64(tip)*1000, To: &to, Value: common.Big1,
			}))
		}
		if i == 3 {
			b.AddTx(types.MustSignNewTx(key, b.Signer(), &types.BlobTx{
				ChainID: uint256.MustFromBig(config.ChainID), Nonce: b.TxNonce(from), GasTipCap: uint256.NewInt(params.GWei),
				GasFeeCap: uint256.NewInt(10 * params.GWei), Gas: params.TxGas, To: to, BlobFeeCap: uint256.NewInt(10),
				BlobHashes: []common.Hash{blobHash},
			}))
		}
	})
	return genesis, blocks
}

// servedChain serves genesis with blocks appended and no block production.
func servedChain(t *testing.T, genesis *core.Genesis, blocks []*types.Block) (*Server, *chain.Chain) {
	t.Helper()
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if err := c.Append(b); err != nil {
			t.Fatalf("append block %d: %v", b.NumberU64(), err)
		}
	}
	txs, err := txpool.New(c, txpool.Config{})
	if err != nil {
		t.Fatal(err)
	}
	store := new(pending.Store)
	seq, err := sequencer.New(sequencer.Config{}, c, txs, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := seq.PublishHead(); err != nil {
		t.Fatal(err)
	}
	calls := callbound.New(callbound.Config{Workers: 1, Queue: 8})
	srv := New(DefaultConfig(), Backend{Chain: c, Pool: txs, Snapshots: store, Calls: calls}, nil)
	t.Cleanup(func() { srv.Close(); calls.Close(); txs.Close(); c.Close() })
	return srv, c
}

// oracleBackend is go-ethereum's fee history oracle's view of a chain.
type oracleBackend struct{ bc *core.BlockChain }

func (b oracleBackend) HeaderByNumber(_ context.Context, n gethrpc.BlockNumber) (*types.Header, error) {
	if n < 0 {
		return b.bc.CurrentBlock(), nil
	}
	return b.bc.GetHeaderByNumber(uint64(n)), nil
}

func (b oracleBackend) BlockByNumber(_ context.Context, n gethrpc.BlockNumber) (*types.Block, error) {
	if n < 0 {
		n = gethrpc.BlockNumber(b.bc.CurrentBlock().Number.Int64())
	}
	return b.bc.GetBlockByNumber(uint64(n)), nil
}

func (b oracleBackend) GetReceipts(_ context.Context, hash common.Hash) (types.Receipts, error) {
	return b.bc.GetReceiptsByHash(hash), nil
}

func (b oracleBackend) Pending() (*types.Block, types.Receipts, *state.StateDB) { return nil, nil, nil }
func (b oracleBackend) ChainConfig() *params.ChainConfig                        { return b.bc.Config() }
func (b oracleBackend) SubscribeChainHeadEvent(ch chan<- core.ChainHeadEvent) event.Subscription {
	return b.bc.SubscribeChainHeadEvent(ch)
}

// gethFeeHistory is what geth's eth_feeHistory answers (internal/ethapi
// FeeHistory over eth/gasprice), in its JSON shape.
func gethFeeHistory(t *testing.T, bc *core.BlockChain, count uint64, newest int64, percentiles []float64) string {
	t.Helper()
	oracle := gasprice.NewOracle(oracleBackend{bc}, gasprice.Config{Blocks: 20, Percentile: 60, MaxHeaderHistory: 1024, MaxBlockHistory: 1024}, nil)
	oldest, reward, baseFee, gasUsed, blobBaseFee, blobGasUsed, err := oracle.FeeHistory(context.Background(), count, gethrpc.BlockNumber(newest), percentiles)
	if err != nil {
		t.Fatal(err)
	}
	out := feeHistory{OldestBlock: (*hexutil.Big)(oldest), GasUsedRatio: gasUsed, BlobGasUsedRatio: blobGasUsed}
	for _, w := range reward {
		row := make([]*hexutil.Big, len(w))
		for i, v := range w {
			row[i] = (*hexutil.Big)(v)
		}
		out.Reward = append(out.Reward, row)
	}
	for _, v := range baseFee {
		out.BaseFee = append(out.BaseFee, (*hexutil.Big)(v))
	}
	// geth's oracle fills baseFeePerBlobGas[i] from block i and from block
	// i-1's "next" value, whichever of its concurrent workers answers last:
	// at the fork the two differ (the last block before Cancun says 0 for
	// the first Cancun block, which pays 1), so each block's own value is
	// taken from a one-block query, where only that block writes it.
	for i := range len(blobBaseFee) - 1 {
		_, _, _, _, own, _, err := oracle.FeeHistory(context.Background(), 1, gethrpc.BlockNumber(oldest.Int64()+int64(i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		blobBaseFee[i] = own[0]
	}
	for _, v := range blobBaseFee {
		out.BlobBaseFee = append(out.BlobBaseFee, (*hexutil.Big)(v))
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// eth_feeHistory answers what geth's own oracle computes on the same chain,
// over ranges before, across and after Cancun: blob base fees and blob gas
// ratios are zero before the fork, and both arrays keep their lengths.
func TestFeeHistoryMatchesGeth(t *testing.T) {
	genesis, blocks := forkChain(t)
	srv, c := servedChain(t, genesis, blocks)
	n := &testNode{t: t, srv: srv, chain: c}
	for _, tc := range []struct {
		name        string
		count       uint64
		newest      int64
		percentiles []float64
	}{
		{"before Cancun", 2, 2, []float64{50}},
		{"across the fork", 6, 6, []float64{10, 50, 90}},
		{"the blob block", 1, 4, nil},
		{"last block before Cancun", 1, 2, nil},
		{"from genesis", 100, 3, []float64{0, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := gethFeeHistory(t, c.BlockChain(), tc.count, tc.newest, tc.percentiles)
			params := []any{hexutil.Uint64(tc.count), hexutil.Uint64(tc.newest)}
			if tc.percentiles != nil {
				params = append(params, tc.percentiles)
			}
			resp := n.call("eth_feeHistory", params...)
			if resp.Error != nil {
				t.Fatalf("error %d %s", resp.Error.Code, resp.Error.Message)
			}
			if !jsonEqual(t, resp.Result, []byte(want)) {
				t.Fatalf("eth_feeHistory(%d, %d, %v)\n got %s\nwant %s", tc.count, tc.newest, tc.percentiles, resp.Result, want)
			}
		})
	}
}
