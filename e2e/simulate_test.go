package e2e

import (
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// balanceReader returns BALANCE(the calldata word).
var balanceReader = hexutil.MustDecode("0x5f35315f5260205ff3")

// simBlockJSON is a simulated block as the tests read it.
type simBlockJSON struct {
	Number     hexutil.Uint64 `json:"number"`
	ParentHash common.Hash    `json:"parentHash"`
	StateRoot  common.Hash    `json:"stateRoot"`
	Timestamp  hexutil.Uint64 `json:"timestamp"`
	Calls      []struct {
		ReturnData hexutil.Bytes  `json:"returnData"`
		Status     hexutil.Uint64 `json:"status"`
	} `json:"calls"`
}

// simulateRaw posts eth_simulateV1(payload, block) and returns the response.
func simulateRaw(t *testing.T, n *node, payload, block any) rpcResponse {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_simulateV1", "params": []any{payload, block}})
	if err != nil {
		t.Fatal(err)
	}
	status, out := httpPost(t, http.DefaultClient, n.URL, "application/json", body)
	if status != http.StatusOK {
		t.Fatalf("eth_simulateV1: HTTP %d %s", status, out)
	}
	var resp rpcResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("eth_simulateV1: %s: %v", out, err)
	}
	return resp
}

// readBalance is a simulation whose second block reads addr's balance; its
// first block runs nothing, so that it is the block being simulated over.
func readBalance(addr common.Address) map[string]any {
	reader := common.HexToAddress("0xc500000000000000000000000000000000000000")
	return map[string]any{"blockStateCalls": []any{
		map[string]any{},
		map[string]any{
			"stateOverrides": map[string]any{reader.Hex(): map[string]any{"code": hexutil.Encode(balanceReader)}},
			"calls":          []any{map[string]any{"to": reader, "input": hexutil.Encode(common.LeftPadBytes(addr.Bytes(), 32))}},
		},
	}}
}

// A raw eth_simulateV1 on pending runs after the pre-confirmed transactions,
// in the pending block's place (its number and timestamp, the head as its
// parent); on latest it does not see them. The simulated block's state root
// is the one the block then seals with, when nothing else joins it.
func TestSimulateOnPending(t *testing.T) {
	n := startNode(t, "--block-time", "2s", "--preconf-interval", "50ms")
	c, rc := n.dial(t)
	ctx := testContext(t, 60*time.Second)
	to := freshAddress(t)
	tx := signTx(t, ctx, c, devAccount(t, 0), &to, big.NewInt(12345), nil)
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the transfer pre-confirmed", func() bool {
		b, err := c.BalanceAt(ctx, to, big.NewInt(int64(rpc.PendingBlockNumber)))
		return err == nil && b.Int64() == 12345
	})
	var pending, latest struct {
		Number    hexutil.Uint64 `json:"number"`
		Hash      *common.Hash   `json:"hash"` // none for pending
		Timestamp hexutil.Uint64 `json:"timestamp"`
	}
	for attempt := 0; ; attempt++ {
		if err := rc.CallContext(ctx, &latest, "eth_getBlockByNumber", "latest", false); err != nil {
			t.Fatal(err)
		}
		if err := rc.CallContext(ctx, &pending, "eth_getBlockByNumber", "pending", false); err != nil {
			t.Fatal(err)
		}
		resp := simulateRaw(t, n, readBalance(to), "pending")
		if resp.Error != nil {
			t.Fatalf("on pending: %d %s", resp.Error.Code, resp.Error.Message)
		}
		var blocks []simBlockJSON
		if err := json.Unmarshal(resp.Result, &blocks); err != nil {
			t.Fatal(err)
		}
		if head, _ := c.BlockNumber(ctx); head != uint64(latest.Number) {
			if attempt == 3 {
				t.Fatal("a block sealed during every attempt")
			}
			continue // a block sealed meanwhile: pending moved on
		}
		first := blocks[0]
		if first.Number != pending.Number || first.ParentHash != *latest.Hash || first.Timestamp != pending.Timestamp {
			t.Errorf("first simulated block: number %d, parent %s, time %d; want the pending block's %d, %s, %d",
				first.Number, first.ParentHash, first.Timestamp, pending.Number, *latest.Hash, pending.Timestamp)
		}
		if got := new(big.Int).SetBytes(blocks[1].Calls[0].ReturnData); got.Int64() != 12345 {
			t.Errorf("balance on pending = %v, want the pre-confirmed 12345", got)
		}
		onLatest := simulateRaw(t, n, readBalance(to), "latest")
		var lblocks []simBlockJSON
		if onLatest.Error != nil || json.Unmarshal(onLatest.Result, &lblocks) != nil {
			t.Fatalf("on latest: %+v", onLatest.Error)
		}
		if got := new(big.Int).SetBytes(lblocks[1].Calls[0].ReturnData); got.Sign() != 0 && lblocks[0].ParentHash == *latest.Hash {
			t.Errorf("balance on latest = %v before the transfer sealed", got)
		}
		if receipt := waitSealed(t, ctx, c, tx.Hash()); receipt.BlockNumber.Uint64() == uint64(first.Number) {
			sealed, err := c.HeaderByNumber(ctx, receipt.BlockNumber)
			if err != nil {
				t.Fatal(err)
			}
			if sealed.Root != first.StateRoot {
				t.Errorf("simulated state root %s, the block sealed with %s", first.StateRoot, sealed.Root)
			}
		} else {
			t.Logf("the transfer sealed in block %v, after the simulated %d: state roots not compared", receipt.BlockNumber, first.Number)
		}
		return
	}
}

// go-ethereum's own client (ethclient.SimulateV1): a contract deployed,
// used and read in three simulated blocks, with its logs, a revert's code
// and data, and traced ether transfers.
func TestSimulateEthclient(t *testing.T) {
	n := startNode(t)
	c, _ := n.dial(t)
	ctx := testContext(t, 30*time.Second)
	tokenABI, code := loadToken(t)
	from, to := freshAddress(t), freshAddress(t)
	deploy := append(append([]byte{}, code...), pack(t, tokenABI, "", "Sim", "SIM", big.NewInt(1000))...)
	token := crypto.CreateAddress(from, 0)
	opts := ethclient.SimulateOptions{
		TraceTransfers: true,
		BlockStateCalls: []ethclient.SimulateBlock{
			{
				StateOverrides: map[common.Address]ethereum.OverrideAccount{from: {Balance: big.NewInt(1e18)}},
				Calls:          []ethereum.CallMsg{{From: from, Data: deploy}},
			},
			{Calls: []ethereum.CallMsg{
				{From: from, To: &token, Data: pack(t, tokenABI, "transfer", to, big.NewInt(10))},
				{From: from, To: &token, Data: pack(t, tokenABI, "fail")},
				{From: from, To: &to, Value: big.NewInt(7)},
			}},
			{Calls: []ethereum.CallMsg{{From: from, To: &token, Data: pack(t, tokenABI, "balanceOf", to)}}},
		},
	}
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := c.SimulateV1(ctx, opts, nil)
	if err != nil {
		t.Fatalf("SimulateV1: %v", err)
	}
	if len(blocks) != 3 || blocks[0].Number.Uint64() <= head {
		t.Fatalf("%d blocks from %v, want 3 after %d", len(blocks), blocks[0].Number, head)
	}
	if r := blocks[0].Calls[0]; r.Status != 1 {
		t.Fatalf("deployment: status %d, %+v", r.Status, r.Error)
	}
	transfer := blocks[1].Calls[0]
	if transfer.Status != 1 || len(transfer.Logs) != 1 || transfer.Logs[0].Address != token ||
		transfer.Logs[0].Topics[0] != tokenABI.Events["Transfer"].ID || common.BytesToAddress(transfer.Logs[0].Topics[2].Bytes()) != to {
		t.Errorf("token transfer: status %d, logs %+v", transfer.Status, transfer.Logs)
	}
	failed := blocks[1].Calls[1]
	if failed.Status != 0 || failed.Error == nil || failed.Error.Code != 3 || !strings.HasPrefix(failed.Error.Message, "execution reverted") || failed.Error.Data == "" {
		t.Errorf("fail(): status %d, error %+v; want code 3 with the revert data", failed.Status, failed.Error)
	}
	eth := blocks[1].Calls[2]
	if eth.Status != 1 || len(eth.Logs) != 1 || eth.Logs[0].Address != common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE") {
		t.Errorf("ether transfer: status %d, logs %+v; want one traced transfer", eth.Status, eth.Logs)
	}
	if got := new(big.Int).SetBytes(blocks[2].Calls[0].ReturnValue); got.Int64() != 10 {
		t.Errorf("balanceOf(to) in block 3 = %v, want 10", got)
	}
}

// Bounds, with errors that name their flag, over the real binary: too many
// blocks or calls (-38026), a huge simulation stopped by --rpc.evmtimeout
// as a whole (-32016), bad overrides (-32602); a bad bound does not start.
func TestSimulateBoundsE2E(t *testing.T) {
	n := startNode(t, "--rpc.simulate.maxblocks", "4", "--rpc.simulate.maxcalls", "6", "--rpc.evmtimeout", "300ms", "--rpc.gascap", "1000000000000")
	loop := common.HexToAddress("0xcd00000000000000000000000000000000000000")
	block := func(calls int) map[string]any {
		cs := make([]any, calls)
		for i := range cs {
			cs[i] = map[string]any{"to": loop}
		}
		return map[string]any{
			"blockOverrides": map[string]any{"gasLimit": hexutil.EncodeUint64(1 << 40)},
			"stateOverrides": map[string]any{loop.Hex(): map[string]any{"code": "0x5b5f56"}}, // JUMPDEST PUSH0 JUMP
			"calls":          cs,
		}
	}
	tests := []struct {
		name    string
		payload map[string]any
		code    int
		msg     string
	}{
		{"too many blocks", map[string]any{"blockStateCalls": []any{block(0), block(0), block(0), block(0), block(0)}}, -38026, "--rpc.simulate.maxblocks"},
		{"too many calls", map[string]any{"blockStateCalls": []any{block(4), block(3)}}, -38026, "--rpc.simulate.maxcalls"},
		{"endless loops in every block", map[string]any{"blockStateCalls": []any{block(2), block(2), block(1), block(1)}}, -32016, "--rpc.evmtimeout"},
		{"a misspelt override", map[string]any{"blockStateCalls": []any{map[string]any{"stateOverrides": map[string]any{loop.Hex(): map[string]any{"cod": "0x00"}}}}}, -32602, `unknown field "cod"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			resp := simulateRaw(t, n, tt.payload, "latest")
			if resp.Error == nil || resp.Error.Code != tt.code || !strings.Contains(resp.Error.Message, tt.msg) {
				t.Fatalf("result %.200s, error %+v; want %d naming %q", resp.Result, resp.Error, tt.code, tt.msg)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("answered after %v: the simulation was not bounded", d)
			}
		})
	}
	out, err := exec.Command(binary, "--dev", "--http.port", "0", "--rpc.simulate.maxblocks", "0").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "--rpc.simulate.maxblocks") {
		t.Errorf("--rpc.simulate.maxblocks 0: %v, %s; want a refusal naming the flag", err, out)
	}
}
