package httpload

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/loadtest/workload"
)

type request struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      uint64            `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

func TestBodiesAreValidAndVary(t *testing.T) {
	token := workload.Token
	for _, kind := range []string{kindGetBalance, kindCall, kindCallDistinct, kindBlockNumber, kindTxCount, kindBlock, kindEstimateGas, kindMix, kindGetProof, kindTraceTx, kindTraceBlock} {
		for _, tag := range []string{"latest", "pending"} {
			g := newBodyGen(kind, tag, token, 3, testHashes, testBlocks)
			seen := map[string]bool{}
			addrs := map[common.Address]bool{}
			var buf []byte
			n := workload.NumAddresses + 64
			for range n {
				var k string
				buf, k = g.next(buf[:0])
				body := string(buf)
				if seen[body] {
					t.Fatalf("%s %s: body repeated: %s", kind, tag, body)
				}
				seen[body] = true
				var req request
				if err := json.Unmarshal(buf, &req); err != nil {
					t.Fatalf("%s %s: invalid JSON %s: %v", kind, tag, body, err)
				}
				if req.JSONRPC != "2.0" || req.ID == 0 {
					t.Fatalf("bad envelope: %s", body)
				}
				if a := checkParams(t, k, tag, req, body); a != (common.Address{}) {
					addrs[a] = true
				}
			}
			if kind == kindGetBalance || kind == kindCall || kind == kindGetProof {
				if len(addrs) != workload.NumAddresses {
					t.Errorf("%s %s: %d distinct addresses over %d requests, want %d", kind, tag, len(addrs), n, workload.NumAddresses)
				}
			}
			if kind == kindCallDistinct && len(addrs) != n {
				t.Errorf("%s %s: %d distinct addresses over %d requests", kind, tag, len(addrs), n)
			}
		}
	}
}

// TestCallDistinctWorkersNeverMeet checks that two workers of callDistinct
// never ask for the same address.
func TestCallDistinctWorkersNeverMeet(t *testing.T) {
	seen := map[string]int{}
	for worker := range 4 {
		g := newBodyGen(kindCallDistinct, "latest", workload.Token, worker, nil, nil)
		var buf []byte
		for range 2000 {
			buf, _ = g.next(buf[:0])
			var req request
			if err := json.Unmarshal(buf, &req); err != nil {
				t.Fatal(err)
			}
			data := string(req.Params[0])
			if w, ok := seen[data]; ok {
				t.Fatalf("workers %d and %d both sent %s", w, worker, data)
			}
			seen[data] = worker
		}
	}
}

// checkParams checks a request's method and params and returns the read
// address it carries (zero for none).
func checkParams(t *testing.T, kind, tag string, req request, body string) (addr common.Address) {
	t.Helper()
	want := map[string]string{kindGetBalance: "eth_getBalance", kindCall: "eth_call", kindCallDistinct: "eth_call", kindBlockNumber: "eth_blockNumber",
		kindTxCount: "eth_getTransactionCount", kindBlock: "eth_getBlockByNumber", kindEstimateGas: "eth_estimateGas",
		kindGetProof: "eth_getProof", kindTraceTx: "debug_traceTransaction", kindTraceBlock: "debug_traceBlockByNumber"}[kind]
	if req.Method != want {
		t.Fatalf("kind %s sent %s: %s", kind, req.Method, body)
	}
	var lastTag string
	switch kind {
	case kindBlockNumber:
		if len(req.Params) != 0 {
			t.Fatalf("params: %s", body)
		}
		return addr
	case kindBlock:
		json.Unmarshal(req.Params[0], &lastTag)
		if string(req.Params[1]) != "false" {
			t.Fatalf("hydrated: %s", body)
		}
	case kindTraceTx, kindTraceBlock:
		traced := map[string][]string{kindTraceTx: testHashes, kindTraceBlock: testBlocks}[kind]
		var what string
		json.Unmarshal(req.Params[0], &what)
		if !slices.Contains(traced, what) || string(req.Params[1]) != `{"tracer":"callTracer"}` {
			t.Fatalf("trace params: %s", body)
		}
		return addr
	case kindGetProof:
		var token common.Address
		var slots []common.Hash
		json.Unmarshal(req.Params[0], &token)
		if err := json.Unmarshal(req.Params[1], &slots); err != nil || token != workload.Token || len(slots) != 1 {
			t.Fatalf("proof params: %s", body)
		}
		addr = slotHolders[slots[0]]
		if addr == (common.Address{}) {
			t.Fatalf("slot %s is no read address's balance slot: %s", slots[0], body)
		}
		json.Unmarshal(req.Params[2], &lastTag)
	case kindGetBalance, kindTxCount:
		if err := json.Unmarshal(req.Params[0], &addr); err != nil {
			t.Fatalf("address: %s: %v", body, err)
		}
		json.Unmarshal(req.Params[1], &lastTag)
	case kindCall, kindCallDistinct, kindEstimateGas:
		var call struct {
			From *common.Address `json:"from"`
			To   common.Address  `json:"to"`
			Data hexutil.Bytes   `json:"data"`
		}
		if err := json.Unmarshal(req.Params[0], &call); err != nil {
			t.Fatalf("call object: %s: %v", body, err)
		}
		if call.To != workload.Token {
			t.Fatalf("to %s: %s", call.To, body)
		}
		sel, size := workload.BalanceOfSelector, 4+32
		if kind == kindEstimateGas {
			sel, size = workload.TransferSelector, 4+64
			if call.From == nil {
				t.Fatalf("estimateGas without from: %s", body)
			}
		}
		if len(call.Data) != size || hexutil.Encode(call.Data[:4]) != "0x"+sel {
			t.Fatalf("calldata: %s", body)
		}
		if kind == kindCall || kind == kindCallDistinct {
			addr = common.BytesToAddress(call.Data[4:36])
		} else {
			addr = *call.From
		}
		json.Unmarshal(req.Params[1], &lastTag)
	}
	if lastTag != tag {
		t.Fatalf("tag %q, want %q: %s", lastTag, tag, body)
	}
	if kind == kindCallDistinct {
		if isReadAddress(addr) {
			t.Fatalf("callDistinct asked for read address %s: %s", addr, body)
		}
		return addr
	}
	if addr != (common.Address{}) && !isReadAddress(addr) {
		t.Fatalf("address %s is not one of the read addresses: %s", addr, body)
	}
	return addr
}

var readAddresses = func() map[common.Address]bool {
	m := map[common.Address]bool{}
	for _, a := range workload.Addresses() {
		m[a] = true
	}
	return m
}()

func isReadAddress(a common.Address) bool { return readAddresses[a] }

// slotHolders maps each read address's token balance slot to the address.
var slotHolders = func() map[common.Hash]common.Address {
	m := map[common.Hash]common.Address{}
	for _, a := range workload.Addresses() {
		m[workload.BalanceSlot(a)] = a
	}
	return m
}()

// testBlocks are the blocks the traceBlockByNumber bodies trace.
var testBlocks = []string{"0x1", "0x2a"}

var testHashes = []string{
	"0x1111111111111111111111111111111111111111111111111111111111111111",
	"0x2222222222222222222222222222222222222222222222222222222222222222",
	"0x3333333333333333333333333333333333333333333333333333333333333333",
}

func TestMixFollowsWeights(t *testing.T) {
	g := newBodyGen(kindMix, "latest", workload.Token, 0, nil, nil)
	counts := map[string]int{}
	var buf []byte
	for range 1000 {
		var k string
		buf, k = g.next(buf[:0])
		counts[k]++
	}
	for _, w := range mixWeights {
		if counts[w.kind] != w.weight*10 {
			t.Errorf("%s: %d of 1000, want %d", w.kind, counts[w.kind], w.weight*10)
		}
	}
}

func BenchmarkBodyGen(b *testing.B) {
	g := newBodyGen(kindCall, "latest", workload.Token, 0, nil, nil)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for range b.N {
		buf, _ = g.next(buf[:0])
	}
}

func TestParseCounts(t *testing.T) {
	got, err := ParseCounts("1, 4,16,64,256")
	if err != nil || len(got) != 5 || got[4] != 256 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "0", "4,x", "-1", "64,,128"} {
		if _, err := ParseCounts(bad); err == nil {
			t.Errorf("ParseCounts(%q) accepted", bad)
		}
	}
}

func TestParseBlocks(t *testing.T) {
	tests := []struct {
		blocks string
		want   []string
		err    bool
	}{
		{"1", []string{"0x1"}, false},
		{"1, 0x2a,300", []string{"0x1", "0x2a", "0x12c"}, false},
		{"", nil, true},
		{"latest", nil, true},
		{"-1", nil, true},
	}
	for _, tt := range tests {
		got, err := parseBlocks(Config{Method: kindTraceBlock, Blocks: tt.blocks})
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("parseBlocks(%q) = %v, %v; want %v, error %v", tt.blocks, got, err, tt.want, tt.err)
		}
	}
}
