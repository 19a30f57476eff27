package faucet

import (
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/internal/httpapi"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/chaintest"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/rpc"
)

// env is a running in-memory preview chain whose genesis funds the faucet
// key.
type env struct {
	*chaintest.Env
	t   *testing.T
	key *ecdsa.PrivateKey
}

// quiet drops the faucet's log: a test's output is its failures.
var quiet = chaintest.Quiet()

// newEnv opens the chain; the sequencer runs once the test calls Run.
func newEnv(t *testing.T) *env {
	t.Helper()
	key, _, err := chain.FaucetKey("")
	if err != nil {
		t.Fatal(err)
	}
	return &env{Env: chaintest.New(t, chaintest.Config{Faucet: crypto.PubkeyToAddress(key.PublicKey)}), t: t, key: key}
}

// backend is the faucet's view of the env, signing with key; its eth_calls
// run on the node's RPC server.
func (e *env) backend(pool Pool, key *ecdsa.PrivateKey) Backend {
	return Backend{Pool: pool, RPC: e.rpcServer(), Snapshots: e.Store, ChainID: e.ChainID, Key: key, StaleAfter: 5 * time.Second}
}

// rpcServer is the node's JSON-RPC server on the env, closed when the test ends.
func (e *env) rpcServer() *rpc.Server {
	calls := callbound.New(callbound.Config{})
	srv := rpc.New(rpc.DefaultConfig(), rpc.Backend{Chain: e.Chain, Pool: e.Pool, Snapshots: e.Store, Calls: calls}, nil)
	e.t.Cleanup(func() {
		srv.Close()
		calls.Close()
	})
	return srv
}

// deploy creates a contract of runtime code from development account 0
// and returns its address once its block is sealed.
func (e *env) deploy(runtime []byte) common.Address {
	e.t.Helper()
	// PUSH1 len, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN: the
	// code after these 12 bytes is the contract's.
	initCode := append([]byte{0x60, byte(len(runtime)), 0x80, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3, 0x00}, runtime...)
	tx := e.Send(0, nil, new(big.Int), 200_000, initCode)
	e.WaitSealed(tx)
	return crypto.CreateAddress(e.Addr(0), tx.Nonce())
}

// newFaucet opens a faucet on the env, closed when the test ends.
func (e *env) newFaucet(cfg Config, b Backend) *Faucet {
	e.t.Helper()
	f, err := New(cfg, b, quiet)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if err := f.Close(); err != nil {
			e.t.Errorf("close: %v", err)
		}
	})
	return f
}

// req is one request to the handler.
type req struct {
	method, path string
	contentType  string
	body         string
	remote       string // client socket IP; default 192.0.2.1
	header       map[string]string
}

// answer is a handler's response.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// apiStatus decodes an error answer's body.
func (a answer) apiStatus(t *testing.T) httpapi.Status {
	t.Helper()
	var s httpapi.Status
	if err := json.Unmarshal(a.body, &s); err != nil || s.Details == nil {
		t.Fatalf("answer %d %s is not the error status object (%v)", a.status, a.body, err)
	}
	return s
}

// requestCtx makes the context the node's server would hand a handler.
func requestCtx(r req) *fasthttp.RequestCtx {
	var fr fasthttp.Request
	fr.Header.SetMethod(r.method)
	fr.SetRequestURI(r.path)
	if r.contentType != "" {
		fr.Header.SetContentType(r.contentType)
	}
	for k, v := range r.header {
		fr.Header.Add(k, v)
	}
	fr.SetBodyString(r.body)
	remote := r.remote
	if remote == "" {
		remote = "192.0.2.1"
	}
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&fr, &net.TCPAddr{IP: net.ParseIP(remote), Port: 40000}, nil)
	return ctx
}

// do serves r with f's handler.
func do(f *Faucet, r req) answer {
	ctx := requestCtx(r)
	f.Handler(ctx)
	a := answer{status: ctx.Response.StatusCode(), body: append([]byte(nil), ctx.Response.Body()...)}
	a.header = http.Header{}
	for k, v := range ctx.Response.Header.All() {
		a.header.Add(string(k), string(v))
	}
	return a
}

// askDrip asks f for a drip to `to` from remote.
func askDrip(f *Faucet, to, remote string, header map[string]string) answer {
	return do(f, req{method: "POST", path: "/api/preview/faucet/drip", contentType: "application/json",
		body: `{"address":"` + to + `"}`, remote: remote, header: header})
}

// dripOK asks for a drip that must succeed and returns its answer.
func dripOK(t *testing.T, f *Faucet, to common.Address, remote string) dripAnswer {
	t.Helper()
	a := askDrip(f, to.Hex(), remote, nil)
	if a.status != 200 {
		t.Fatalf("drip to %s from %s: %d %s", to, remote, a.status, a.body)
	}
	var d dripAnswer
	if err := json.Unmarshal(a.body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// freshAddress is an account nobody has used.
func freshAddress(t *testing.T) common.Address {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(key.PublicKey)
}

// latestBalance reads addr's balance at the latest sealed block.
func latestBalance(t *testing.T, snap *pending.Snapshot, addr common.Address) *big.Int {
	t.Helper()
	acct, err := snap.LatestReader().Account(addr)
	if err != nil {
		t.Fatal(err)
	}
	return balanceOf(acct)
}

// latestNonce reads addr's nonce at the latest sealed block.
func latestNonce(t *testing.T, snap *pending.Snapshot, addr common.Address) uint64 {
	t.Helper()
	acct, err := snap.LatestReader().Account(addr)
	if err != nil {
		t.Fatal(err)
	}
	if acct == nil {
		return 0
	}
	return acct.Nonce
}

// findTx finds a drip's transaction in the pool, the pending block or the
// sealed blocks.
func (e *env) findTx(hash common.Hash) *types.Transaction {
	e.t.Helper()
	if tx := e.Pool.Get(hash); tx != nil {
		return tx
	}
	snap := e.Store.Load()
	for _, tx := range snap.Pending.Transactions {
		if tx.Hash() == hash {
			return tx
		}
	}
	for n := snap.Head.NumberU64(); n > 0; n-- {
		if block := e.Chain.BlockChain().GetBlockByNumber(n); block != nil {
			if tx := block.Transaction(hash); tx != nil {
				return tx
			}
		}
	}
	e.t.Fatalf("transaction %s is nowhere", hash)
	return nil
}
