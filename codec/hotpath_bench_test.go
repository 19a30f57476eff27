package codec_test

// The hot-path benchmarks of the codec (formerly in bench/):
//
//	go test -run '^$' -bench . -benchmem ./codec/

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/codec"
)

// The request bodies of the design's anchor workload.
var (
	getBalanceBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","latest"]}`)
	callBody       = []byte(`{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{"to":"0x5fbdb2315678afecb367f032d93f642f64180aa3","data":"0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},"pending"]}`)
)

// BenchmarkDecodeGetBalance scans an eth_getBalance request and parses its
// two parameters.
func BenchmarkDecodeGetBalance(b *testing.B) {
	b.SetBytes(int64(len(getBalanceBody)))
	b.ReportAllocs()
	for b.Loop() {
		var req codec.Request
		if cerr := codec.ScanRequest(getBalanceBody, &req); cerr != nil {
			b.Fatal(cerr)
		}
		it, err := codec.Array(req.Params)
		if err != nil || !it.Next() {
			b.Fatal("no address")
		}
		if _, err := codec.ParseAddress(it.Value()); err != nil {
			b.Fatal(err)
		}
		if !it.Next() {
			b.Fatal("no block")
		}
		if bp, err := codec.ParseBlockParam(it.Value()); err != nil || bp.Tag != codec.TagLatest {
			b.Fatal(bp, err)
		}
	}
}

// BenchmarkDecodeCall scans an eth_call request and parses its call object
// into a reused CallArgs, as the server's pooled request does, and its block.
func BenchmarkDecodeCall(b *testing.B) {
	var args codec.CallArgs
	b.SetBytes(int64(len(callBody)))
	b.ReportAllocs()
	for b.Loop() {
		var req codec.Request
		if cerr := codec.ScanRequest(callBody, &req); cerr != nil {
			b.Fatal(cerr)
		}
		it, err := codec.Array(req.Params)
		if err != nil || !it.Next() {
			b.Fatal("no call object")
		}
		if err := codec.ParseCallArgs(it.Value(), &args); err != nil || len(args.Data) != 36 {
			b.Fatal(err)
		}
		if !it.Next() {
			b.Fatal("no block")
		}
		if bp, err := codec.ParseBlockParam(it.Value()); err != nil || bp.Tag != codec.TagPending {
			b.Fatal(bp, err)
		}
	}
}

// BenchmarkEncodeBalanceResult writes an eth_getBalance response (10,000
// ETH) into a reused buffer.
func BenchmarkEncodeBalanceResult(b *testing.B) {
	balance := uint256.MustFromHex("0x21e19e0c9bab2400000")
	id := []byte("1")
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = codec.AppendResultStart(buf[:0], id)
		buf = codec.AppendUint256(buf, balance)
		buf = codec.AppendResultEnd(buf)
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkEncodeCallResult writes an eth_call response carrying one 32-byte
// word (a balanceOf answer) into a reused buffer.
func BenchmarkEncodeCallResult(b *testing.B) {
	ret := common.HexToHash("0x00000000000000000000000000000000000000000000021e19e0c9bab2400000")
	id := []byte("2")
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = codec.AppendResultStart(buf[:0], id)
		buf = codec.AppendBytes(buf, ret[:])
		buf = codec.AppendResultEnd(buf)
	}
	b.SetBytes(int64(len(buf)))
}
