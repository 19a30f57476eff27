package app

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/httpserver"
	"github.com/stocknode/stocknode/node/rpc"
	"github.com/stocknode/stocknode/node/sequencer"
)

// faucetNode starts a node with the faucet as cfg has it, serving until
// stop (or the test's end); it returns the node and its base URL.
func faucetNode(t *testing.T, dataDir string, fc faucet.Config) (n *Node, url string, stop func()) {
	t.Helper()
	cfg := Config{
		Dev:       dataDir == "",
		DataDir:   dataDir,
		Sequencer: sequencer.Config{BlockTime: 50 * time.Millisecond, PreconfInterval: 50 * time.Millisecond},
		HTTP:      httpserver.DefaultConfig(),
		RPC:       rpc.DefaultConfig(),
		Faucet:    fc,
	}
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.WSDisabled = true
	n, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
	t.Cleanup(stop)
	return n, "http://" + n.HTTPAddr(), stop
}

// call sends a request and decodes a JSON answer into out.
func call(t *testing.T, method, url, body string, header map[string]string, out any) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, raw, err)
		}
	}
	return resp
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// TestFaucetWiring: the node serves the faucet under /api/{network}/,
// signing with its faucet key; a drip lands in a sealed block; a page on
// another origin may post; paths the faucet does not own stay the node's.
func TestFaucetWiring(t *testing.T) {
	n, url, _ := faucetNode(t, "", faucet.DefaultConfig())
	var status struct {
		Enabled bool   `json:"enabled"`
		Address string `json:"address"`
	}
	if resp := call(t, "GET", url+"/api/preview/faucet/status", "", nil, &status); resp.StatusCode != 200 || !status.Enabled || status.Address != n.FaucetAddress().Hex() {
		t.Fatalf("status: %d %+v, want the node's faucet %s", resp.StatusCode, status, n.FaucetAddress().Hex())
	}
	to := crypto.PubkeyToAddress(mustKey(t).PublicKey)
	var d struct {
		TxHash common.Hash `json:"tx_hash"`
	}
	header := map[string]string{"Content-Type": "application/json", "Origin": "https://faucet.example"}
	resp := call(t, "POST", url+"/api/preview/faucet/drip", `{"address":"`+to.Hex()+`"}`, header, &d)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("drip: %d, CORS %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	waitBalance(t, n, to, faucet.DefaultConfig().Amount)
	var health faucet.Health
	if resp := call(t, "GET", url+"/api/preview/chain-health", "", nil, &health); resp.StatusCode != 200 || !health.Healthy || health.Reason != faucet.ReasonOK {
		t.Errorf("chain-health: %d %+v", resp.StatusCode, health)
	}
	var st struct{ Code int }
	for _, path := range []string{"/api/preview/explorer", "/api/other/faucet/drip"} {
		if resp := call(t, "GET", url+path, "", nil, &st); resp.StatusCode != 404 || st.Code != 5 {
			t.Errorf("%s: %d code %d, want the node's 404", path, resp.StatusCode, st.Code)
		}
	}
}

// TestFaucetOffKeepsChainHealth: --faucet=false turns drips off, not
// chain-health.
func TestFaucetOffKeepsChainHealth(t *testing.T) {
	_, url, _ := faucetNode(t, "", faucet.Config{})
	var st struct{ Code int }
	if resp := call(t, "POST", url+"/api/preview/faucet/drip", `{"address":"0x52908400098527886E0F7030069857D2E4169EE7"}`, jsonHeader, &st); resp.StatusCode != 503 || st.Code != 14 {
		t.Errorf("drip: %d code %d", resp.StatusCode, st.Code)
	}
	var health faucet.Health
	if resp := call(t, "GET", url+"/api/preview/chain-health", "", nil, &health); resp.StatusCode != 200 || health.Reason == "" {
		t.Errorf("chain-health: %d %+v", resp.StatusCode, health)
	}
}

// TestFaucetCooldownsSurviveRestart: a node restarted on its datadir
// keeps the faucet's cooldowns in <datadir>/faucet.
func TestFaucetCooldownsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	to := `{"address":"0x52908400098527886E0F7030069857D2E4169EE7"}`
	_, url, stop := faucetNode(t, dir, faucet.DefaultConfig())
	if resp := call(t, "POST", url+"/api/preview/faucet/drip", to, jsonHeader, nil); resp.StatusCode != 200 {
		t.Fatalf("drip: %d", resp.StatusCode)
	}
	stop()
	_, url, _ = faucetNode(t, dir, faucet.DefaultConfig())
	var st struct {
		Code    int
		Message string
	}
	resp := call(t, "POST", url+"/api/preview/faucet/drip", to, jsonHeader, &st)
	if resp.StatusCode != 429 || st.Code != 8 || !strings.Contains(st.Message, "may drip again") {
		t.Errorf("drip after the restart: %d %+v", resp.StatusCode, st)
	}
}

// waitBalance polls the latest state until addr holds want.
func waitBalance(t *testing.T, n *Node, addr common.Address, want *big.Int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if acct, err := n.Snapshots().Load().LatestReader().Account(addr); err == nil && acct != nil && acct.Balance.ToBig().Cmp(want) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never held %s", addr, want)
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return key
}
