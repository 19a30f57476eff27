package rpc_test

// The node's hot-path benchmarks (formerly in bench/): whole requests
// through the RPC server on an in-memory chain, the head snapshot's reads
// and the newHeads encoding.
//
//	go test -run '^$' -bench . -benchmem ./node/rpc/

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// token is balanceOf(address) reduced to its reads: SLOAD of the mapping
// slot keccak(holder ++ 0), returned as one word.
var (
	token        = common.HexToAddress("0x2000000000000000000000000000000000000020")
	tokenRuntime = hexutil.MustDecode("0x600435600052600060205260406000205460005260206000f3")
)

// holders are the 1,024 funded addresses the benchmarks read.
var holders = func() []common.Address {
	out := make([]common.Address, 1024)
	for i := range out {
		out[i] = common.BigToAddress(big.NewInt(int64(i * 7919)))
	}
	return out
}()

func holder(i int) common.Address { return holders[i] }

// benchNode is an in-memory preview chain whose genesis funds 1,024
// addresses with ETH and token balances, served by the RPC server.
type benchNode struct {
	srv   *rpc.Server
	store *pending.Store
}

func newBenchNode(b *testing.B) *benchNode {
	b.Helper()
	genesis, err := chain.PreviewGenesis(common.Address{0xfa})
	if err != nil {
		b.Fatal(err)
	}
	storage := map[common.Hash]common.Hash{}
	for i := 0; i < 1024; i++ {
		slot := crypto.Keccak256Hash(common.LeftPadBytes(holder(i).Bytes(), 32), make([]byte, 32))
		storage[slot] = common.BigToHash(big.NewInt(int64(i + 1)))
		genesis.Alloc[holder(i)] = types.Account{Balance: big.NewInt(1e18)}
	}
	genesis.Alloc[token] = types.Account{Code: tokenRuntime, Storage: storage, Balance: new(big.Int)}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}})
	if err != nil {
		b.Fatal(err)
	}
	txs, err := txpool.New(c, txpool.Config{})
	if err != nil {
		b.Fatal(err)
	}
	calls := callbound.New(callbound.Config{})
	store := new(pending.Store)
	seq, err := sequencer.New(sequencer.Config{}, c, txs, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	if err := seq.PublishHead(); err != nil {
		b.Fatal(err)
	}
	srv := rpc.New(rpc.DefaultConfig(), rpc.Backend{Chain: c, Pool: txs, Snapshots: store, Calls: calls}, nil)
	b.Cleanup(func() {
		srv.Close()
		txs.Close()
		c.Close()
	})
	return &benchNode{srv: srv, store: store}
}

// BenchmarkSnapshotReads reads accounts and slots from the head snapshot,
// as every latest/pending request does (the per-block cache included).
func BenchmarkSnapshotReads(b *testing.B) {
	n := newBenchNode(b)
	reader := n.store.Load().LatestReader()
	shared := reader.(pending.SharedAccountReader)
	b.Run("balance", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			acct, err := shared.AccountShared(holder(i % 1024))
			if err != nil || acct == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nonce", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := shared.AccountShared(holder(i % 1024)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("storage", func(b *testing.B) {
		slots := make([]common.Hash, 1024)
		for i := range slots {
			slots[i] = crypto.Keccak256Hash(common.LeftPadBytes(holder(i).Bytes(), 32), make([]byte, 32))
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := reader.Storage(token, slots[i%1024]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkServer answers whole requests through the RPC server (scan,
// snapshot, state or EVM, encode), bodies varying over 1,024 holders.
func BenchmarkServer(b *testing.B) {
	n := newBenchNode(b)
	for _, bench := range []struct{ name, body string }{
		{"getBalance/latest", `{"jsonrpc":"2.0","id":%d,"method":"eth_getBalance","params":["%s","latest"]}`},
		{"getBalance/pending", `{"jsonrpc":"2.0","id":%d,"method":"eth_getBalance","params":["%s","pending"]}`},
		{"call/latest", `{"jsonrpc":"2.0","id":%d,"method":"eth_call","params":[{"to":"` + token.Hex() + `","data":"0x70a08231%064s"},"latest"]}`},
		{"call/pending", `{"jsonrpc":"2.0","id":%d,"method":"eth_call","params":[{"to":"` + token.Hex() + `","data":"0x70a08231%064s"},"pending"]}`},
	} {
		b.Run(bench.name, func(b *testing.B) {
			bodies := make([][]byte, 1024)
			for i := range bodies {
				addr := holder(i).Hex()
				if bench.name[:4] == "call" {
					addr = addr[2:]
				}
				bodies[i] = []byte(fmt.Sprintf(bench.body, i, addr))
			}
			out := make([]byte, 0, 512)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out = n.srv.Handle(bodies[i%1024], out[:0])
			}
		})
	}
}

// BenchmarkEncodeNewHeads encodes a newHeads notification's result, which
// the WebSocket broadcaster does once per block for every subscriber.
func BenchmarkEncodeNewHeads(b *testing.B) {
	n := newBenchNode(b)
	header := n.store.Load().HeadHeader
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(rpc.MarshalHeader(header)); err != nil {
			b.Fatal(err)
		}
	}
}
