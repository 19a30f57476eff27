package e2e

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// faucetAnswer is a drip's answer, 200 or error status object.
type faucetAnswer struct {
	status     int
	retryAfter string
	TxHash     common.Hash `json:"tx_hash"`
	AmountWei  string      `json:"amount_wei"`
	To         string      `json:"to"`
	Code       int         `json:"code"`
	Message    string      `json:"message"`
}

// faucetDrip asks the node's faucet for a drip to `to`, with
// X-Forwarded-For set when xff is not empty.
func faucetDrip(t *testing.T, n *node, to common.Address, xff string) faucetAnswer {
	t.Helper()
	req, err := http.NewRequest("POST", n.URL+"/api/preview/faucet/drip", strings.NewReader(`{"address":"`+to.Hex()+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := faucetAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("drip: %d %s: %v", resp.StatusCode, body, err)
	}
	return a
}

// TestFaucetDripLandsAndCooldownsSurviveRestart: over real sockets, a drip
// lands in a sealed block, and the binary killed with SIGKILL and restarted
// on its datadir still holds the address's and the client's cooldowns.
func TestFaucetDripLandsAndCooldownsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dev=false", "--datadir", dir, "--block-time", "50ms", "--preconf-interval", "50ms"}
	n := startNode(t, args...)
	poll(t, testContext(t, 5*time.Second), "the faucet's URL in the startup lines", func() bool {
		return strings.Contains(n.tail(0), `msg="Faucet listening" url=`+n.URL+"/api/preview/faucet/drip")
	})
	to := freshAddress(t)
	a := faucetDrip(t, n, to, "")
	if a.status != 200 || a.To != to.Hex() || a.AmountWei != "100000000000000000" {
		t.Fatalf("drip: %+v", a)
	}
	client, _ := n.dial(t)
	ctx := testContext(t, 20*time.Second)
	receipt := waitSealed(t, ctx, client, a.TxHash)
	balance, err := client.BalanceAt(ctx, to, receipt.BlockNumber)
	if err != nil || balance.Cmp(big.NewInt(1e17)) != 0 {
		t.Fatalf("balance after the drip's block: %v, %v", balance, err)
	}
	n.kill() // no clean shutdown: what the faucet acknowledged is on disk

	n = startNode(t, args...)
	for _, tt := range []struct {
		name string
		to   common.Address
		says string
	}{
		{"same address", to, "address " + to.Hex()},
		{"same client", freshAddress(t), "client 127.0.0.1"},
	} {
		a := faucetDrip(t, n, tt.to, "")
		if a.status != 429 || a.Code != 8 || !strings.HasPrefix(a.Message, tt.says+" may drip again in ") || a.retryAfter == "" {
			t.Errorf("%s after the restart: %+v", tt.name, a)
		}
	}
}

// TestFaucetForwardedFor: over real sockets, X-Forwarded-For is believed
// from a trusted proxy only (--faucet.trusted-proxies).
func TestFaucetForwardedFor(t *testing.T) {
	steps := []struct {
		name   string
		xff    string
		status int
	}{
		{"first client", "198.51.100.1", 200},
		{"first client again", "198.51.100.1", 429},
		{"second client", "198.51.100.2", 200},
	}
	trusting := startNode(t, "--faucet.trusted-proxies", "127.0.0.1")
	for _, s := range steps {
		if a := faucetDrip(t, trusting, freshAddress(t), s.xff); a.status != s.status {
			t.Errorf("behind a trusted proxy, %s: %+v, want %d", s.name, a, s.status)
		}
	}
	// Without trusted proxies the header names nobody: all of it is
	// 127.0.0.1, which may drip once.
	spoofed := startNode(t)
	for i, s := range steps {
		want := 429
		if i == 0 {
			want = 200
		}
		if a := faucetDrip(t, spoofed, freshAddress(t), s.xff); a.status != want {
			t.Errorf("spoofed, %s: %+v, want %d", s.name, a, want)
		}
	}
}

// TestFaucetBadFlags: a bad faucet flag stops the binary at start with a
// message that names it.
func TestFaucetBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		says string
	}{
		{[]string{"--faucet.amount", "0.1"}, "faucet.amount: amount \"0.1\" has no unit"},
		{[]string{"--faucet.amount", "lots"}, "faucet.amount"},
		{[]string{"--faucet.trusted-proxies", "10.0.0.0/33"}, "faucet.trusted-proxies"},
		{[]string{"--faucet.cooldown", "-1s"}, "--faucet.cooldown"},
		{[]string{"--faucet.captcha", "turnstile"}, "--faucet.captcha-secret"},
		{[]string{"--faucet.captcha", "recaptcha", "--faucet.captcha-secret", "s", "--faucet.captcha-sitekey", "k"}, "--faucet.captcha"},
	}
	for _, tt := range tests {
		args := append([]string{"--dev", "--http.port", "0"}, tt.args...)
		out, err := exec.Command(binary, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.says) {
			t.Errorf("%v: err %v, output %s; want a failure naming %s", tt.args, err, out, tt.says)
		}
	}
}

// TestFaucetUnpayable: over real sockets, a drip to an address that cannot
// receive ether is refused with 400 and spends no cooldown: the same
// client's next drip, to an account, is paid.
func TestFaucetUnpayable(t *testing.T) {
	n := startNode(t)
	for _, tt := range []struct {
		name   string
		to     common.Address
		status int
	}{
		{"the ecrecover precompile", common.BytesToAddress([]byte{1}), 400},
		{"the B20 factory", common.HexToAddress("0xB20f000000000000000000000000000000000000"), 400},
		{"an account, from the same client", freshAddress(t), 200},
	} {
		a := faucetDrip(t, n, tt.to, "")
		if a.status != tt.status || tt.status == 400 && (a.Code != 3 || !strings.Contains(a.Message, tt.to.Hex()+" cannot receive ether")) {
			t.Errorf("drip to %s: %+v", tt.name, a)
		}
	}
}
