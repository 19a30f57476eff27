package faucet

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/internal/apistatus"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/txpool"
)

// env is a running in-memory preview chain whose genesis funds the faucet
// key, with its pool and sequencer.
type env struct {
	t     *testing.T
	chain *chain.Chain
	pool  *txpool.Pool
	store *pending.Store
	key   *ecdsa.PrivateKey
	seq   *sequencer.Sequencer
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// blockTime is the test chains' block time: short, so drips land fast.
const blockTime = 50 * time.Millisecond

func newEnv(t *testing.T) *env {
	t.Helper()
	key, _, err := chain.FaucetKey("")
	if err != nil {
		t.Fatal(err)
	}
	genesis, err := chain.PreviewGenesis(crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{InMemory: true, Genesis: genesis, Rules: chain.Rules{MinBaseFee: chain.PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := txpool.New(c, txpool.Config{})
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		c.Close()
	})
	e := &env{t: t, chain: c, pool: pool, store: new(pending.Store), key: key}
	cfg := sequencer.Config{BlockTime: blockTime, PreconfInterval: blockTime, GasCeil: chain.PreviewGasLimit}
	if e.seq, err = sequencer.New(cfg, c, pool, e.store, quiet); err != nil {
		t.Fatal(err)
	}
	if err := e.seq.PublishHead(); err != nil {
		t.Fatal(err)
	}
	return e
}

// run starts the sequencer (telling l of sealed blocks) until the test
// ends or stop is called.
func (e *env) run(l sequencer.Listener) (stop func()) {
	if l != nil {
		e.seq.SetListener(l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := e.seq.Run(ctx); err != nil {
			e.t.Errorf("sequencer: %v", err)
		}
	}()
	stop = func() {
		cancel()
		wg.Wait()
	}
	e.t.Cleanup(stop)
	return stop
}

// backend is the faucet's view of the env, signing with key.
func (e *env) backend(pool Pool, key *ecdsa.PrivateKey) Backend {
	return Backend{Pool: pool, Snapshots: e.store, ChainID: e.chain.Config().ChainID, Key: key, StaleAfter: 5 * time.Second}
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
func (a answer) apiStatus(t *testing.T) apistatus.Status {
	t.Helper()
	var s apistatus.Status
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

// drip asks f for a drip to `to` from remote.
func drip(f *Faucet, to, remote string, header map[string]string) answer {
	return do(f, req{method: "POST", path: "/api/preview/faucet/drip", contentType: "application/json",
		body: `{"address":"` + to + `"}`, remote: remote, header: header})
}

// dripOK asks for a drip that must succeed and returns its answer.
func dripOK(t *testing.T, f *Faucet, to common.Address, remote string) dripAnswer {
	t.Helper()
	a := drip(f, to.Hex(), remote, nil)
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

// waitLatest polls the latest sealed state until cond holds.
func (e *env) waitLatest(what string, cond func(snap *pending.Snapshot) bool) *pending.Snapshot {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if snap := e.store.Load(); snap != nil && cond(snap) {
			return snap
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("timed out waiting for %s", what)
	return nil
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
	if tx := e.pool.Get(hash); tx != nil {
		return tx
	}
	snap := e.store.Load()
	for _, tx := range snap.Pending.Transactions {
		if tx.Hash() == hash {
			return tx
		}
	}
	for n := snap.Head.NumberU64(); n > 0; n-- {
		if block := e.chain.BlockChain().GetBlockByNumber(n); block != nil {
			if tx := block.Transaction(hash); tx != nil {
				return tx
			}
		}
	}
	e.t.Fatalf("transaction %s is nowhere", hash)
	return nil
}
