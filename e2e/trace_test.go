package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
)

// traceFrame is the part of a callTracer frame the tests read.
type traceFrame struct {
	Type    string         `json:"type"`
	From    common.Address `json:"from"`
	To      common.Address `json:"to"`
	Input   hexutil.Bytes  `json:"input"`
	GasUsed hexutil.Uint64 `json:"gasUsed"`
	Error   string         `json:"error"`
	Logs    []struct {
		Address common.Address `json:"address"`
		Topics  []common.Hash  `json:"topics"`
	} `json:"logs"`
}

var withLogs = map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}

// postJSONRPC sends one request as a plain HTTP POST, as a curl or an
// explorer's backend does, and decodes its result into v.
func postJSONRPC(ctx context.Context, url, method string, v any, params ...any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("%s: HTTP %d: %w", method, resp.StatusCode, err)
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %d %s", method, out.Error.Code, out.Error.Message)
	}
	return json.Unmarshal(out.Result, v)
}

// Foundry's `cast run` replays a sealed token transfer against the node;
// debug_traceTransaction with callTracer answers over plain JSON-RPC on
// that sealed transfer and on a pre-confirmed one (3 s blocks keep it
// pre-confirmed), and debug_traceBlockByNumber("pending") traces the block
// being built.
func TestTraceCastAndCallTracer(t *testing.T) {
	cast := castBinary(t)
	n := startNode(t, "--block-time", "3s")
	ctx := testContext(t, 90*time.Second)
	c, _ := n.dial(t)
	from, to := devAccount(t, 2), freshAddress(t)
	token := deployToken(t, ctx, c, from, big.NewInt(1_000_000))
	tokenABI, _ := loadToken(t)
	transfer := pack(t, tokenABI, "transfer", to, big.NewInt(7))
	transferTopic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

	sealed := send(t, ctx, c, from, &token, new(big.Int), transfer)
	receipt := waitSealed(t, ctx, c, sealed.Hash())

	cmd := exec.CommandContext(ctx, cast, "run", "--rpc-url", n.URL, sealed.Hash().Hex())
	out, err := cmd.CombinedOutput()
	t.Logf("cast run %s:\n%s", sealed.Hash().Hex(), out)
	if err != nil {
		t.Fatalf("cast run: %v", err)
	}
	if !strings.Contains(string(out), "Transaction successfully executed") || !strings.Contains(strings.ToLower(string(out)), strings.ToLower(token.Hex())) {
		t.Errorf("cast run did not replay the transfer to %s", token.Hex())
	}

	check := func(what string, frame traceFrame) {
		t.Helper()
		if frame.Type != "CALL" || frame.From != from.addr || frame.To != token || !bytes.Equal(frame.Input, transfer) || frame.Error != "" {
			t.Errorf("%s: frame %+v, want the transfer from %s to %s", what, frame, from.addr, token)
		}
		if len(frame.Logs) != 1 || frame.Logs[0].Address != token || frame.Logs[0].Topics[0] != transferTopic {
			t.Errorf("%s: logs %+v, want the Transfer event", what, frame.Logs)
		}
	}
	var latest traceFrame
	if err := postJSONRPC(ctx, n.URL, "debug_traceTransaction", &latest, sealed.Hash(), withLogs); err != nil {
		t.Fatal(err)
	}
	check("sealed", latest)
	if uint64(latest.GasUsed) != receipt.GasUsed {
		t.Errorf("sealed: gasUsed %d, receipt %d", latest.GasUsed, receipt.GasUsed)
	}

	// Right after a block seals, a transfer stays pre-confirmed for up to 3 s.
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for next := head; next == head; time.Sleep(20 * time.Millisecond) {
		if next, err = c.BlockNumber(ctx); err != nil {
			t.Fatal(err)
		}
	}
	preconfirmed := send(t, ctx, c, from, &token, new(big.Int), transfer)
	var pending traceFrame
	var block []struct {
		TxHash common.Hash `json:"txHash"`
		Result traceFrame  `json:"result"`
	}
	for {
		err := postJSONRPC(ctx, n.URL, "debug_traceTransaction", &pending, preconfirmed.Hash(), withLogs)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "transaction not found") || ctx.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := postJSONRPC(ctx, n.URL, "debug_traceBlockByNumber", &block, "pending", withLogs); err != nil {
		t.Fatal(err)
	}
	// On / a receipt means a sealed block: still none after the traces, the
	// transfer was not sealed.
	if r, err := c.TransactionReceipt(ctx, preconfirmed.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("the transfer was sealed while the test traced it as pre-confirmed (receipt %+v, %v): rerun", r, err)
	}
	check("pre-confirmed", pending)
	if len(block) != 1 || block[0].TxHash != preconfirmed.Hash() {
		t.Fatalf("pending block trace %+v, want the pre-confirmed transfer", block)
	}
	check("pending block", block[0].Result)

	// Sealed, it traces the same.
	final := waitSealed(t, ctx, c, preconfirmed.Hash())
	var after traceFrame
	if err := postJSONRPC(ctx, n.URL, "debug_traceTransaction", &after, preconfirmed.Hash(), withLogs); err != nil {
		t.Fatal(err)
	}
	if after.GasUsed != pending.GasUsed || uint64(after.GasUsed) != final.GasUsed {
		t.Errorf("gasUsed pre-confirmed %d, sealed %d, receipt %d", pending.GasUsed, after.GasUsed, final.GasUsed)
	}
	assertTracedBadInput(t, ctx, n.URL, c)
}

// assertTracedBadInput checks the errors a client sees over HTTP.
func assertTracedBadInput(t *testing.T, ctx context.Context, url string, c *ethclient.Client) {
	t.Helper()
	var v any
	for _, bad := range []struct {
		method string
		params []any
		want   string
	}{
		{"debug_traceTransaction", []any{common.HexToHash("0xdead"), withLogs}, "-32000 transaction not found"},
		{"debug_traceBlockByNumber", []any{"latest", map[string]any{"tracer": "jsTracer"}}, `-32602 invalid argument 1: unknown tracer "jsTracer"`},
		{"debug_traceCall", []any{map[string]any{"to": common.Address{}}, "pending", map[string]any{"timeout": "later"}}, "-32602 invalid argument 2: time: invalid duration"},
	} {
		err := postJSONRPC(ctx, url, bad.method, &v, bad.params...)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s%v: %v, want %q", bad.method, bad.params, err, bad.want)
		}
	}
}
