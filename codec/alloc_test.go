package codec

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// The hot paths of the node, as bench/codec_bench_test.go measures them.
// The tests here keep them at zero allocations under plain `go test`.

var (
	getBalanceBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","latest"]}`)
	callBody       = []byte(`{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{"to":"0x5fbdb2315678afecb367f032d93f642f64180aa3","data":"0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},"pending"]}`)
)

// decodeGetBalance is what the eth_getBalance handler does with a body.
func decodeGetBalance(body []byte) (common.Address, BlockParam, bool) {
	var req Request
	if ScanRequest(body, &req) != nil {
		return common.Address{}, BlockParam{}, false
	}
	it, err := Array(req.Params)
	if err != nil || !it.Next() {
		return common.Address{}, BlockParam{}, false
	}
	addr, err := ParseAddress(it.Value())
	if err != nil || !it.Next() {
		return common.Address{}, BlockParam{}, false
	}
	bp, err := ParseBlockParam(it.Value())
	return addr, bp, err == nil
}

// decodeCall is what the eth_call handler does with a body, args pooled.
func decodeCall(body []byte, args *CallArgs) (BlockParam, bool) {
	var req Request
	if ScanRequest(body, &req) != nil {
		return BlockParam{}, false
	}
	it, err := Array(req.Params)
	if err != nil || !it.Next() || ParseCallArgs(it.Value(), args) != nil || !it.Next() {
		return BlockParam{}, false
	}
	bp, err := ParseBlockParam(it.Value())
	return bp, err == nil
}

func TestHotPathsDoNotAllocate(t *testing.T) {
	var args CallArgs
	balance := uint256.MustFromHex("0x21e19e0c9bab2400000")
	var ret common.Hash
	ret[31] = 1
	buf := make([]byte, 0, 512)
	id := []byte("1")

	paths := []struct {
		name string
		run  func()
	}{
		{"DecodeGetBalance", func() {
			if _, bp, ok := decodeGetBalance(getBalanceBody); !ok || bp.Tag != TagLatest {
				t.Fatal("getBalance did not decode")
			}
		}},
		{"DecodeCall", func() {
			if bp, ok := decodeCall(callBody, &args); !ok || bp.Tag != TagPending || len(args.Data) != 36 {
				t.Fatal("call did not decode")
			}
		}},
		{"EncodeBalanceResult", func() {
			buf = AppendResultEnd(AppendUint256(AppendResultStart(buf[:0], id), balance))
		}},
		{"EncodeCallResult", func() {
			buf = AppendResultEnd(AppendBytes(AppendResultStart(buf[:0], id), ret[:]))
		}},
	}
	for _, p := range paths {
		p.run() // warm the pooled buffers
		if n := testing.AllocsPerRun(100, p.run); n != 0 {
			t.Errorf("%s allocates %v times per run, want 0", p.name, n)
		}
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":"0x0000000000000000000000000000000000000000000000000000000000000001"}`; string(buf) != want {
		t.Errorf("call result = %s, want %s", buf, want)
	}
}

// TestColdPathsDoNotAllocate covers the rarer inputs that still must not
// allocate: escaped tags, block hashes, EIP-1898 objects, folded member
// names.
func TestColdPathsDoNotAllocate(t *testing.T) {
	var args CallArgs
	args.Data = make([]byte, 0, 64)
	blockParams := []string{
		`"lat\u0065st"`,
		`"` + testHash + `"`,
		`{"blockHash":"` + testHash + `","requireCanonical":true}`,
		`{"BlockNumber":"0x10"}`,
	}
	for _, in := range blockParams {
		raw := []byte(in)
		var err error
		n := testing.AllocsPerRun(50, func() { _, err = ParseBlockParam(raw) })
		if err != nil || n != 0 {
			t.Errorf("ParseBlockParam(%s): %v allocations per run, error %v", in, n, err)
		}
	}
	call := []byte(`{"T\u004f":"` + testTo + `","INPUT":"0x01","Value":"0x1"}`)
	var err error
	if n := testing.AllocsPerRun(50, func() { err = ParseCallArgs(call, &args) }); err != nil || n != 0 {
		t.Errorf("ParseCallArgs(%s): %v allocations per run, error %v", call, n, err)
	}
}
