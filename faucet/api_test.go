package faucet

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/internal/httpapi"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/peer"
)

// TestDripLands: a drip answers with its transaction once pooled, and the
// recipient's balance at latest grows by exactly the amount in a block;
// an account with code gets the contract gas limit.
func TestDripLands(t *testing.T) {
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	e.Run(f)
	tests := []struct {
		name string
		to   common.Address
		gas  uint64
	}{
		{"account", freshAddress(t), params.TxGas},
		{"contract", e.deploy([]byte{0x00}), DefaultConfig().ContractGas}, // STOP: takes any value
	}
	for i, tt := range tests {
		before := latestBalance(t, e.Store.Load(), tt.to)
		d := dripOK(t, f, tt.to, fmt.Sprintf("192.0.2.%d", i+1))
		if d.To != tt.to.Hex() || d.AmountWei != "100000000000000000" || d.TxHash == (common.Hash{}) {
			t.Fatalf("%s: answer %+v", tt.name, d)
		}
		tx := e.findTx(d.TxHash)
		if tx.Gas() != tt.gas || tx.Value().Cmp(DefaultConfig().Amount) != 0 || *tx.To() != tt.to {
			t.Errorf("%s: transaction gas %d value %s to %s", tt.name, tx.Gas(), tx.Value(), tx.To())
		}
		if tt.name != "account" {
			continue // a contract's code decides what it keeps
		}
		snap := e.WaitFor("drip in a sealed block", func(s *pending.Snapshot) bool { return latestBalance(t, s, tt.to).Cmp(before) != 0 })
		if got, want := latestBalance(t, snap, tt.to), new(big.Int).Add(before, DefaultConfig().Amount); got.Cmp(want) != 0 {
			t.Errorf("%s: balance %s after the drip's block, want %s", tt.name, got, want)
		}
	}
}

// TestUnpayable: a drip to an address that cannot receive ether (a
// precompile, the B20 factory, a contract that reverts on receive) is
// refused with 400 before anything is sent, and spends no cooldown: the
// address is refused again, not held off, and the client's next drip, to
// an account, is paid. A replica's drip, run by this faucet, is the same.
func TestUnpayable(t *testing.T) {
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	e.Run(f)
	reverts := e.deploy([]byte{0x60, 0x00, 0x60, 0x00, 0xfd}) // REVERT(0, 0)
	tests := []struct {
		name string
		to   common.Address
		why  string // in the 400's message
	}{
		{"ecrecover precompile", common.BytesToAddress([]byte{1}), "out of gas"},
		{"blake2f precompile", common.BytesToAddress([]byte{9}), "invalid input length"},
		{"B20 factory", contracts.FactoryAddress, "execution reverted"},
		{"contract that reverts on receive", reverts, "execution reverted"},
	}
	for i, tt := range tests {
		client := fmt.Sprintf("192.0.2.%d", 10+i)
		for _, via := range []string{"API", "API again", "relay"} {
			nonce := e.Pool.Nonce(f.Address())
			var status int
			var msg string
			if via == "relay" {
				res := f.Drip(context.Background(), drip.Request{To: tt.to, Client: netip.MustParseAddr(client)})
				status, msg = res.Status, res.Message
			} else {
				a := askDrip(f, tt.to.Hex(), client, nil)
				status, msg = a.status, a.apiStatus(t).Message
			}
			want := "address: " + tt.to.Hex() + " cannot receive ether: a transfer of 0.1 ETH to it fails (" + tt.why + ")"
			if status != 400 || !strings.HasPrefix(msg, want) {
				t.Errorf("%s via the %s: %d %q, want 400 %q", tt.name, via, status, msg, want)
			}
			if got := e.Pool.Nonce(f.Address()); got != nonce {
				t.Errorf("%s via the %s: the faucet's nonce moved from %d to %d", tt.name, via, nonce, got)
			}
		}
		dripOK(t, f, freshAddress(t), client)
	}
}

// TestCooldowns: a drip holds off its address from any client and its
// client for any address, with a 429 that says when; others go on.
func TestCooldowns(t *testing.T) {
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	e.Run(f)
	alice, bob, carol := freshAddress(t), freshAddress(t), freshAddress(t)
	dripOK(t, f, alice, "192.0.2.1")
	tests := []struct {
		name   string
		to     common.Address
		remote string
		want   string // the 429's message, "" for a 200
	}{
		{"same address, other client", alice, "192.0.2.2", "address " + alice.Hex() + " may drip again in 10s"},
		{"same client, other address", bob, "192.0.2.1", "client 192.0.2.1 may drip again in 10s"},
		{"same IPv6 /64, other address", bob, "2001:db8::1", ""},
		{"IPv6 neighbour in the /64", carol, "2001:db8::2", "client 2001:db8::/64 may drip again in 10s"},
		{"other client, other address", carol, "192.0.2.3", ""},
	}
	for _, tt := range tests {
		a := askDrip(f, tt.to.Hex(), tt.remote, nil)
		if tt.want == "" {
			if a.status != 200 {
				t.Errorf("%s: %d %s", tt.name, a.status, a.body)
			}
			continue
		}
		s := a.apiStatus(t)
		if a.status != 429 || s.Code != httpapi.ResourceExhausted || s.Message != tt.want {
			t.Errorf("%s: %d %+v, want 429 code 8 %q", tt.name, a.status, s, tt.want)
		}
		if got := a.header.Get("Retry-After"); got != "10" {
			t.Errorf("%s: Retry-After %q, want 10", tt.name, got)
		}
	}
}

// TestCooldownExpires: after the cooldown the address and client drip again.
func TestCooldownExpires(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.Cooldown = 300 * time.Millisecond
	f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	e.Run(f)
	to := freshAddress(t)
	dripOK(t, f, to, "192.0.2.1")
	if a := askDrip(f, to.Hex(), "192.0.2.1", nil); a.status != 429 || a.header.Get("Retry-After") != "1" {
		t.Fatalf("within the cooldown: %d %s (Retry-After %q, rounded up to a second)", a.status, a.body, a.header.Get("Retry-After"))
	}
	time.Sleep(cfg.Cooldown)
	dripOK(t, f, to, "192.0.2.1")
}

// TestClientAddress: X-Forwarded-For names the client only through a
// trusted proxy, read from the right across all its header lines.
func TestClientAddress(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	var err error
	if cfg.TrustedProxies, err = peer.ParseProxies("10.0.0.0/8"); err != nil {
		t.Fatal(err)
	}
	f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	off := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key)) // no trusted proxies
	tests := []struct {
		name   string
		f      *Faucet
		remote string
		xff    []string
		want   string
	}{
		{"no header", f, "192.0.2.1", nil, "192.0.2.1"},
		{"untrusted peer's header ignored", f, "192.0.2.1", []string{"198.51.100.9"}, "192.0.2.1"},
		{"no proxies trusted", off, "10.0.0.1", []string{"198.51.100.9"}, "10.0.0.1"},
		{"trusted proxy", f, "10.0.0.1", []string{"198.51.100.9"}, "198.51.100.9"},
		{"client's own entries before the proxy's ignored", f, "10.0.0.1", []string{"203.0.113.5, 198.51.100.9"}, "198.51.100.9"},
		{"chain of trusted proxies", f, "10.0.0.1", []string{"198.51.100.9, 10.1.1.1"}, "198.51.100.9"},
		{"a second header line is the list's end", f, "10.0.0.1", []string{"203.0.113.5", "198.51.100.9"}, "198.51.100.9"},
		{"malformed hop stops at the proxy", f, "10.0.0.1", []string{"nonsense"}, "10.0.0.1"},
		{"IPv4-mapped socket", f, "::ffff:192.0.2.1", nil, "192.0.2.1"},
	}
	for _, tt := range tests {
		ctx := requestCtx(req{method: "POST", path: "/", remote: tt.remote})
		for _, v := range tt.xff {
			ctx.Request.Header.Add("X-Forwarded-For", v)
		}
		if got := tt.f.client(ctx).String(); got != tt.want {
			t.Errorf("%s: client %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestSpoofedForwardedFor: a header from an untrusted peer neither dodges
// its own cooldown nor spends another client's; a trusted proxy's counts.
func TestSpoofedForwardedFor(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.TrustedProxies, _ = peer.ParseProxies("10.0.0.1")
	f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	e.Run(f)
	xff := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }
	steps := []struct {
		name   string
		remote string
		header map[string]string
		status int
	}{
		{"attacker names the victim", "192.0.2.66", xff("198.51.100.7"), 200},
		{"attacker names someone else: still the attacker", "192.0.2.66", xff("198.51.100.8"), 429},
		{"victim through the proxy is untouched", "10.0.0.1", xff("198.51.100.7"), 200},
		{"victim again through the proxy: its own cooldown", "10.0.0.1", xff("198.51.100.7"), 429},
		{"another client through the proxy", "10.0.0.1", xff("198.51.100.8"), 200},
	}
	for _, s := range steps {
		if a := askDrip(f, freshAddress(t).Hex(), s.remote, s.header); a.status != s.status {
			t.Errorf("%s: %d %s, want %d", s.name, a.status, a.body, s.status)
		}
	}
}

// TestBadRequests: malformed requests get a clear error and change
// nothing: no transaction, no cooldown, no drip counted.
func TestBadRequests(t *testing.T) {
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	faucetAddr := crypto.PubkeyToAddress(e.key.PublicKey)
	good := freshAddress(t)
	lower := strings.ToLower(good.Hex())
	// EIP-55's test vector 0x52908400098527886E0F7030069857D2E4169EE7, one letter's case flipped.
	badSum := "0x52908400098527886e0F7030069857D2E4169EE7"
	drip := "/api/preview/faucet/drip"
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		status      int
		code        int
		msg         string // a part of the message
	}{
		{"empty", "POST", drip, "application/json", "", 400, 3, "empty"},
		{"blank", "POST", drip, "application/json", "  \n", 400, 3, "empty"},
		{"not JSON", "POST", drip, "application/json", "address=0x1", 400, 3, "not JSON"},
		{"truncated", "POST", drip, "application/json", `{"address":"` + lower, 400, 3, "not JSON"},
		{"array", "POST", drip, "application/json", `["` + lower + `"]`, 400, 3, "JSON object"},
		{"string", "POST", drip, "application/json", `"` + lower + `"`, 400, 3, "JSON object"},
		{"no address", "POST", drip, "application/json", `{"addr":"` + lower + `"}`, 400, 3, "address: missing"},
		{"null address", "POST", drip, "application/json", `{"address":null}`, 400, 3, "address: missing"},
		{"number address", "POST", drip, "application/json", `{"address":12}`, 400, 3, "want a string"},
		{"bad hex", "POST", drip, "application/json", `{"address":"0xzz` + lower[4:] + `"}`, 400, 3, "not an address"},
		{"short", "POST", drip, "application/json", `{"address":"` + lower[:40] + `"}`, 400, 3, "not an address"},
		{"long", "POST", drip, "application/json", `{"address":"` + lower + `00"}`, 400, 3, "not an address"},
		{"no 0x", "POST", drip, "application/json", `{"address":"` + lower[2:] + `"}`, 400, 3, "not an address"},
		{"bad checksum", "POST", drip, "application/json", `{"address":"` + badSum + `"}`, 400, 3, "checksum"},
		{"two objects", "POST", drip, "application/json", `{"address":"` + lower + `"}{}`, 400, 3, "more after"},
		{"zero address", "POST", drip, "application/json", `{"address":"0x0000000000000000000000000000000000000000"}`, 400, 3, "cannot receive"},
		{"the faucet itself", "POST", drip, "application/json", `{"address":"` + faucetAddr.Hex() + `"}`, 400, 3, "cannot receive"},
		{"huge body", "POST", drip, "application/json", `{"address":"` + lower + `","pad":"` + strings.Repeat("x", 1024) + `"}`, 413, 3, "limit is 1024"},
		{"text", "POST", drip, "text/plain", `{"address":"` + lower + `"}`, 415, 3, "application/json"},
		{"form", "POST", drip, "application/x-www-form-urlencoded", "address=" + lower, 415, 3, "application/json"},
		{"no content type", "POST", drip, "", `{"address":"` + lower + `"}`, 415, 3, "application/json"},
		{"GET drip", "GET", drip, "", "", 501, 12, "Method Not Allowed"},
		{"POST status", "POST", "/api/preview/faucet/status", "application/json", "{}", 501, 12, "Method Not Allowed"},
		{"DELETE chain-health", "DELETE", "/api/preview/chain-health", "", "", 501, 12, "Method Not Allowed"},
		{"unknown path", "POST", "/api/preview/faucet/drips", "application/json", `{"address":"` + lower + `"}`, 404, 5, "Not Found"},
		{"path below drip", "POST", drip + "/x", "application/json", `{"address":"` + lower + `"}`, 404, 5, "Not Found"},
		{"other network", "POST", "/api/mainnet/faucet/drip", "application/json", `{"address":"` + lower + `"}`, 404, 5, "Not Found"},
	}
	nonce := e.Pool.Nonce(faucetAddr)
	for _, tt := range tests {
		a := do(f, req{method: tt.method, path: tt.path, contentType: tt.contentType, body: tt.body})
		s := a.apiStatus(t)
		if a.status != tt.status || s.Code != tt.code || !strings.Contains(s.Message, tt.msg) {
			t.Errorf("%s: %d %+v, want %d code %d with %q", tt.name, a.status, s, tt.status, tt.code, tt.msg)
		}
		if tt.status == 501 && a.header.Get("Allow") == "" {
			t.Errorf("%s: 501 without Allow", tt.name)
		}
	}
	if got := e.Pool.Nonce(faucetAddr); got != nonce {
		t.Errorf("bad requests sent %d transactions", got-nonce)
	}
	if n := f.cools.drips(); n != 0 {
		t.Errorf("bad requests counted %d drips", n)
	}
	// Neither the client nor the address spent a cooldown.
	dripOK(t, f, good, "")
}

// TestEmptyFaucet: a faucet that cannot pay answers 503 and spends no
// cooldown.
func TestEmptyFaucet(t *testing.T) {
	e := newEnv(t)
	broke, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, broke))
	to := freshAddress(t)
	for range 2 { // the second is a 503 again, not a 429
		a := askDrip(f, to.Hex(), "", nil)
		if s := a.apiStatus(t); a.status != 503 || s.Code != httpapi.Unavailable || !strings.Contains(s.Message, "faucet is empty") {
			t.Fatalf("empty faucet: %d %+v", a.status, s)
		}
	}
}

// TestFaucetOff: drips answer 503, status says enabled:false, and
// chain-health is served.
func TestFaucetOff(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.Enabled = false
	f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	a := askDrip(f, freshAddress(t).Hex(), "", nil)
	if s := a.apiStatus(t); a.status != 503 || s.Code != httpapi.Unavailable || s.Message != "the faucet is off on this node (--faucet=false)" {
		t.Errorf("drip: %d %+v", a.status, s)
	}
	st := getStatus(t, f)
	if st.Enabled || st.Address != crypto.PubkeyToAddress(e.key.PublicKey).Hex() {
		t.Errorf("status %+v", st)
	}
	if a := do(f, req{method: "GET", path: "/api/preview/chain-health"}); a.status != 200 {
		t.Errorf("chain-health: %d %s", a.status, a.body)
	}
}

func getStatus(t *testing.T, f *Faucet) statusAnswer {
	t.Helper()
	a := do(f, req{method: "GET", path: "/api/preview/faucet/status"})
	var st statusAnswer
	if err := json.Unmarshal(a.body, &st); a.status != 200 || err != nil {
		t.Fatalf("status: %d %s (%v)", a.status, a.body, err)
	}
	return st
}

// TestStatus reports the configuration, the pending balance and the
// drips of the last hour.
func TestStatus(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.Captcha = CaptchaConfig{Provider: Turnstile, Secret: "s3cret", SiteKey: "0xSITE"}
	f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	e.Run(f)
	addr := crypto.PubkeyToAddress(e.key.PublicKey)
	st := getStatus(t, f)
	want := statusAnswer{
		Enabled: true, Network: "preview", ChainID: "84538453", Address: addr.Hex(), BalanceWei: st.BalanceWei,
		AmountWei: "100000000000000000", CooldownSecs: 10, Captcha: &captchaShown{Provider: "turnstile", SiteKey: "0xSITE"},
	}
	if st.Captcha == nil || *st.Captcha != *want.Captcha {
		t.Errorf("captcha %+v, want %+v", st.Captcha, want.Captcha)
	}
	st.Captcha, want.Captcha = nil, nil
	if st != want {
		t.Errorf("status %+v, want %+v", st, want)
	}
	if balance, ok := new(big.Int).SetString(st.BalanceWei, 10); !ok || balance.Cmp(big.NewInt(params.Ether)) < 0 {
		t.Errorf("balance_wei %q", st.BalanceWei)
	}
	raw := do(f, req{method: "GET", path: "/api/preview/faucet/status"}).body
	if strings.Contains(string(raw), "s3cret") {
		t.Fatalf("status shows the captcha secret: %s", raw)
	}
	for _, key := range []string{`"enabled"`, `"chain_id"`, `"balance_wei"`, `"amount_wei"`, `"cooldown_secs"`, `"drips_last_hour"`, `"site_key"`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("status lacks %s: %s", key, raw)
		}
	}
}

// TestDripsCounted: the status counts drips, and its pending balance
// falls by each drip's amount and fee.
func TestDripsCounted(t *testing.T) {
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	e.Run(f)
	before := getStatus(t, f)
	for i := range 3 {
		dripOK(t, f, freshAddress(t), fmt.Sprintf("192.0.2.%d", i+1))
	}
	after := getStatus(t, f)
	if before.DripsLastHour != 0 || after.DripsLastHour != 3 {
		t.Errorf("drips_last_hour %d then %d, want 0 then 3", before.DripsLastHour, after.DripsLastHour)
	}
}

// TestRestartKeepsCooldowns: a faucet reopened on the same directory
// still holds the cooldowns and counts the drips.
func TestRestartKeepsCooldowns(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.Dir = t.TempDir()
	first, err := New(cfg, e.backend(e.Pool, e.key), quiet)
	if err != nil {
		t.Fatal(err)
	}
	to := freshAddress(t)
	dripOK(t, first, to, "192.0.2.1")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if a := askDrip(first, freshAddress(t).Hex(), "192.0.2.9", nil); a.status != 503 {
		t.Errorf("drip after Close: %d %s", a.status, a.body)
	}
	second := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	for _, remote := range []string{"192.0.2.1", "192.0.2.2"} {
		if a := askDrip(second, to.Hex(), remote, nil); a.status != 429 {
			t.Errorf("after the restart, from %s: %d %s", remote, a.status, a.body)
		}
	}
	if a := askDrip(second, freshAddress(t).Hex(), "192.0.2.1", nil); a.status != 429 {
		t.Errorf("after the restart, the client: %d %s", a.status, a.body)
	}
	if n := getStatus(t, second).DripsLastHour; n != 1 {
		t.Errorf("drips_last_hour %d after the restart, want 1", n)
	}
}

// TestConcurrentDrips: 200 drips at once to distinct addresses from
// distinct clients all land exactly once, on 200 consecutive nonces.
func TestConcurrentDrips(t *testing.T) {
	const n = 200
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	e.Run(f)
	faucetAddr := crypto.PubkeyToAddress(e.key.PublicKey)
	start := latestNonce(t, e.Store.Load(), faucetAddr)
	to := make([]common.Address, n)
	hashes := make([]common.Hash, n)
	var wg sync.WaitGroup
	for i := range n {
		to[i] = freshAddress(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := askDrip(f, to[i].Hex(), fmt.Sprintf("198.18.%d.%d", i/250, i%250+1), nil)
			var d dripAnswer
			if err := json.Unmarshal(a.body, &d); a.status != 200 || err != nil {
				t.Errorf("drip %d: %d %s", i, a.status, a.body)
				return
			}
			hashes[i] = d.TxHash
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	seen := map[common.Hash]bool{}
	for _, h := range hashes {
		if seen[h] {
			t.Fatalf("transaction %s answered twice", h)
		}
		seen[h] = true
	}
	snap := e.WaitFor("200 drips sealed", func(s *pending.Snapshot) bool { return latestNonce(t, s, faucetAddr) >= start+n })
	if got := latestNonce(t, snap, faucetAddr); got != start+n {
		t.Errorf("faucet nonce advanced by %d, want %d", got-start, n)
	}
	for i, addr := range to {
		if b := latestBalance(t, snap, addr); b.Cmp(DefaultConfig().Amount) != 0 {
			t.Errorf("recipient %d holds %s, want one drip", i, b)
		}
	}
	if got := f.cools.drips(); got != n {
		t.Errorf("drips counted %d, want %d", got, n)
	}
}

// TestConcurrentDripsToOneAddress: of many drips at once to one address,
// exactly one passes the cooldown.
func TestConcurrentDripsToOneAddress(t *testing.T) {
	e := newEnv(t)
	f := e.newFaucet(DefaultConfig(), e.backend(e.Pool, e.key))
	e.Run(f)
	to := freshAddress(t).Hex()
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := askDrip(f, to, fmt.Sprintf("192.0.2.%d", i+1), nil)
			mu.Lock()
			statuses[a.status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[200] != 1 || statuses[429] != 19 {
		t.Errorf("statuses %v, want one 200 and 19 429s", statuses)
	}
}

// TestNetworkPath: the endpoints follow the network's name, escaped in
// the URLs the faucet reports and routed as the server decodes them.
func TestNetworkPath(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.Network = "Base Preview"
	f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
	if got := f.HealthURL("http://h"); got != "http://h/api/Base%20Preview/chain-health" {
		t.Fatalf("HealthURL %s", got)
	}
	if a := do(f, req{method: "GET", path: "/api/Base%20Preview/chain-health"}); a.status != 200 {
		t.Errorf("chain-health: %d %s", a.status, a.body)
	}
	if a := do(f, req{method: "GET", path: "/api/preview/chain-health"}); a.status != 404 {
		t.Errorf("the default network's path: %d %s", a.status, a.body)
	}
}
