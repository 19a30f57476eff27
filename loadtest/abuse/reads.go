package abuse

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
)

// The read attacks: reads whose answers are large, beside the canary
// (Etherscan pages of an address with thousands of transactions, the
// whole content of a full pool), and the checks of two smaller findings:
// the faucet refuses an address that cannot receive ether without spending
// the client's cooldown, and every JSON answer says nosniff.

// abusePoolAccount fills the pool for heavy-reads: not the battery's
// sender, whose later transactions would wait behind the pooled ones.
const abusePoolAccount = 8

// busyAddress receives the transactions the Etherscan pagers read.
var busyAddress = common.HexToAddress("0xB0B0000000000000000000000000000000000002")

// Batches of transactions sent at once: a batch of the largest pooled
// transactions stays far below the node's 5 MiB body limit.
const (
	historyBatch = 250
	poolBatch    = 100
)

// historyBacklog is how far the history's sender runs ahead of the sealed
// blocks: about a block and a half of transfers, far below the pool's
// 5,120 slots.
const historyBacklog = 2_000

// busyHistory is the busy address's history, made once per battery.
type busyHistory struct {
	txs   int
	setup time.Duration
}

// stuffedPool is what stuffPool pooled: nonces from to to-1 of s.
type stuffedPool struct {
	s        *txSender
	from, to uint64
	size     int
	setup    time.Duration
}

// prepareHeavyReads gives the busy address its history (once per
// battery) and fills the pool, then returns the attack.
func (b *battery) prepareHeavyReads(ctx context.Context) (func(context.Context) outcome, error) {
	if b.history == nil {
		h, err := b.makeHistory(ctx, b.cfg.ReadsHistory)
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", busyAddress, err)
		}
		b.history = h
	}
	var err error
	if b.stuffed, err = b.stuffPool(ctx, b.cfg.ReadsPoolTxs, b.cfg.ReadsPoolBytes); err != nil {
		return nil, fmt.Errorf("fill the pool: %w", err)
	}
	return b.heavyReads, nil
}

// heavyReads runs -reads-pagers Etherscan clients paging the busy
// address's history and -reads-pool-clients txpool_content clients at
// once, for -duration.
func (b *battery) heavyReads(ctx context.Context) outcome {
	var out outcome
	h, p := b.history, b.stuffed
	out.detailf("setup: %d transactions to %s in %s; %d pooled transactions of %s calldata, a block's gas each, pooled in %s",
		h.txs, busyAddress.Hex(), fmtDur(h.setup), p.to-p.from, byteSize(int64(p.size)), fmtDur(p.setup))
	var (
		wg    sync.WaitGroup
		pages *pagerStats
		pool  []streamed
	)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"txpool_content","params":[]}`)
	wg.Go(func() { pages = b.etherscanPagers(ctx) })
	wg.Go(func() { pool = b.repeatStreams(ctx, b.cfg.ReadsPoolClients, body, []byte(`"hash"`)) })
	wg.Wait()
	out.detailf("Etherscan txlist of its %d transactions, %d pagers for %v: %s", h.txs, b.cfg.ReadsPagers, b.cfg.Duration, pages.describe())
	out.detailf("txpool_content, %d at once for %v: %s", b.cfg.ReadsPoolClients, b.cfg.Duration, describeStreams(pool, "transactions"))
	if msg := firstRefusal(pool); msg != "" {
		out.detailf("txpool_content's first refusal: %s", msg)
	}
	if pages.pages == 0 {
		out.unexpectedf("no Etherscan page was answered in %v", b.cfg.Duration)
	}
	return out
}

// firstRefusal is the first JSON-RPC error among rs, in full.
func firstRefusal(rs []streamed) string {
	for _, r := range rs {
		var env rpcclient.Envelope
		if r.err == nil && json.Unmarshal(r.head, &env) == nil && env.Error != nil {
			return truncate(env.Error.Message, 300)
		}
	}
	return ""
}

// makeHistory sends n transfers of 1 wei to the busy address from the
// battery's sender and waits until the address index has them all.
func (b *battery) makeHistory(ctx context.Context, n int) (*busyHistory, error) {
	start := time.Now()
	s, err := b.sender()
	if err != nil {
		return nil, err
	}
	f := fees{tip: big.NewInt(params.GWei), cap: big.NewInt(100 * params.GWei)}
	for sent := 0; sent < n; {
		if err := s.waitBacklog(ctx, historyBacklog); err != nil {
			return nil, err
		}
		txs := make([]*types.Transaction, min(historyBatch, n-sent))
		for i := range txs {
			if txs[i], err = s.signAt(s.nonce+uint64(i), f, &busyAddress, big.NewInt(1), nil, params.TxGas); err != nil {
				return nil, err
			}
		}
		if err := s.sendAll(txs, nil); err != nil {
			return nil, err
		}
		sent += len(txs)
	}
	if err := s.sealed(ctx); err != nil {
		return nil, err
	}
	if err := b.waitIndexed(ctx, n); err != nil {
		return nil, err
	}
	return &busyHistory{txs: n, setup: time.Since(start)}, nil
}

// waitIndexed waits until the Etherscan API answers the busy address's
// N-th transaction.
func (b *battery) waitIndexed(ctx context.Context, n int) error {
	client := b.freshClient()
	for {
		r := b.etherscanPage(ctx, client, n, 1)
		if r.kind == pageRows && r.rows == 1 {
			return nil
		}
		if !sleepCtx(ctx, 200*time.Millisecond) {
			return fmt.Errorf("the address index has no transaction %d of %s (last answer: %s): %w", n, busyAddress, r.describe(), ctx.Err())
		}
	}
}

// stuffPool pools n transactions of size bytes of calldata from
// abusePoolAccount, each with a block's gas limit: a block takes one, as
// its first (the gas a transaction leaves unused goes back to the block,
// so half a block's would not do), and the pool stays full for the attack.
func (b *battery) stuffPool(ctx context.Context, n, size int) (*stuffedPool, error) {
	start := time.Now()
	s, err := newTxSender(b.cfg.URL, abusePoolAccount)
	if err != nil {
		return nil, err
	}
	if err := s.readNonce(); err != nil {
		return nil, err
	}
	var block struct {
		GasLimit hexutil.Uint64 `json:"gasLimit"`
	}
	if err := s.rpc.Call(&block, "eth_getBlockByNumber", "latest", false); err != nil {
		return nil, err
	}
	gas := uint64(block.GasLimit)
	data := bytes.Repeat([]byte{0xab}, size)
	f := fees{tip: big.NewInt(params.GWei), cap: big.NewInt(10 * params.GWei)}
	p := &stuffedPool{s: s, from: s.nonce, to: s.nonce, size: size}
	for p.to-p.from < uint64(n) && ctx.Err() == nil {
		txs := make([]*types.Transaction, min(poolBatch, n-int(p.to-p.from)))
		for i := range txs {
			if txs[i], err = s.signAt(s.nonce+uint64(i), f, &s.from, new(big.Int), data, gas); err != nil {
				return p, err
			}
		}
		err := s.sendAll(txs, nil)
		p.to = s.nonce
		if err != nil {
			return p, err
		}
	}
	p.setup = time.Since(start)
	return p, ctx.Err()
}

// unstuffPool replaces the large pooled transactions that are left with
// plain transfers, which the next blocks take, so that the attacks after
// heavy-reads find the pool as it was.
func (b *battery) unstuffPool(ctx context.Context) error {
	p := b.stuffed
	if p == nil || p.to == p.from {
		return nil
	}
	b.stuffed = nil
	s := p.s
	defer s.rpc.HTTP.CloseIdleConnections()
	var sealed hexutil.Uint64
	if err := s.rpc.Call(&sealed, "eth_getTransactionCount", s.from, "latest"); err != nil {
		return err
	}
	// A replacement pays 10% more than the transaction it replaces.
	f := fees{tip: big.NewInt(2 * params.GWei), cap: big.NewInt(20 * params.GWei)}
	gone := func(err error) bool { return strings.Contains(err.Error(), "nonce too low") }
	for lo := max(uint64(sealed), p.from); lo < p.to; lo += poolBatch {
		txs := make([]*types.Transaction, min(poolBatch, p.to-lo))
		for i := range txs {
			tx, err := s.signAt(lo+uint64(i), f, &s.from, new(big.Int), nil, params.TxGas)
			if err != nil {
				return err
			}
			txs[i] = tx
		}
		if err := s.sendAll(txs, gone); err != nil {
			return err
		}
	}
	s.nonce = p.to
	return s.sealed(ctx)
}

// sendAll sends txs, signed at the sender's next nonces, in one batch and
// moves the nonce past them. An element's error fails the batch unless
// tolerated says it may be ignored.
func (s *txSender) sendAll(txs []*types.Transaction, tolerated func(error) bool) error {
	calls := make([]*rpcclient.BatchCall, len(txs))
	for i, tx := range txs {
		raw, err := tx.MarshalBinary()
		if err != nil {
			return err
		}
		calls[i] = &rpcclient.BatchCall{Method: "eth_sendRawTransaction", Params: []any{hexutil.Bytes(raw)}}
	}
	if err := s.rpc.Batch(calls); err != nil {
		return err
	}
	for i, c := range calls {
		if c.Err != nil && (tolerated == nil || !tolerated(c.Err)) {
			s.readNonce() // what the pool took of the batch
			return fmt.Errorf("nonce %d: %w", txs[i].Nonce(), c.Err)
		}
	}
	s.nonce = txs[len(txs)-1].Nonce() + 1
	return nil
}

// waitBacklog waits until at most max of the sender's transactions are
// not yet sealed.
func (s *txSender) waitBacklog(ctx context.Context, max uint64) error {
	for {
		var n hexutil.Uint64
		if err := s.rpc.Call(&n, "eth_getTransactionCount", s.from, "latest"); err != nil {
			return err
		}
		if s.nonce <= uint64(n)+max {
			return nil
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return fmt.Errorf("%d transactions of %s not sealed: %w", s.nonce-uint64(n), s.from, ctx.Err())
		}
	}
}

// pageKind is what an Etherscan answer was.
type pageKind int

const (
	pageFailed pageKind = iota // a transport error, another HTTP status or another error
	pageRows                   // status 1 with entries, or "No transactions found"
	pageBusy                   // asked to retry: the node is answering as many as it may
)

// pageResult is one Etherscan request.
type pageResult struct {
	kind pageKind
	rows int
	size int64
	took time.Duration
	msg  string // pageFailed's and pageBusy's
}

func (r pageResult) describe() string {
	switch r.kind {
	case pageRows:
		return fmt.Sprintf("%d rows", r.rows)
	case pageBusy:
		return "busy: " + r.msg
	}
	return r.msg
}

// etherscanPage asks for page page of the busy address's transactions,
// oldest first, offset rows a page (0: the node's default), and reads
// the answer to its end.
func (b *battery) etherscanPage(ctx context.Context, client *http.Client, page, offset int) pageResult {
	u := strings.TrimRight(b.cfg.URL, "/") + "/api?module=account&action=txlist&sort=asc&address=" + busyAddress.Hex() + "&page=" + strconv.Itoa(page)
	if offset > 0 {
		u += "&offset=" + strconv.Itoa(offset)
	}
	t0 := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return pageResult{msg: err.Error()}
	}
	resp, err := client.Do(req)
	if err != nil {
		return pageResult{msg: err.Error(), took: time.Since(t0)}
	}
	defer resp.Body.Close()
	w := &countingWriter{marker: []byte(`"blockNumber"`)}
	_, err = io.Copy(w, resp.Body)
	r := pageResult{size: w.n, took: time.Since(t0)}
	switch {
	case err != nil:
		r.msg = err.Error()
	case resp.StatusCode != http.StatusOK:
		r.msg = fmt.Sprintf("HTTP %d: %.100s", resp.StatusCode, w.head)
	case bytes.HasPrefix(w.head, []byte(`{"status":"1"`)):
		r.kind, r.rows = pageRows, w.count
	case bytes.Contains(w.head, []byte("No transactions found")):
		r.kind = pageRows
	case bytes.Contains(bytes.ToLower(w.head), []byte("rate limit")):
		r.kind, r.msg = pageBusy, string(w.head)
	default:
		r.msg = truncate(string(w.head), 200)
	}
	return r
}

// pagerStats is the pagers' record.
type pagerStats struct {
	hist                 *latency.Hist
	requests, pages      int
	rows                 int
	walks                int // whole histories read
	busy, failed         int
	largest              int64
	firstBusy, firstFail string
}

func newPagerStats() *pagerStats { return &pagerStats{hist: latency.New()} }

func (s *pagerStats) record(r pageResult) {
	s.requests++
	s.hist.Record(r.took)
	switch r.kind {
	case pageRows:
		s.pages++
		s.rows += r.rows
		s.largest = max(s.largest, r.size)
	case pageBusy:
		s.busy++
		s.firstBusy = cmpOr(s.firstBusy, r.msg)
	default:
		s.failed++
		s.firstFail = cmpOr(s.firstFail, r.msg)
	}
}

func (s *pagerStats) merge(o *pagerStats) {
	s.hist.Merge(o.hist)
	s.requests += o.requests
	s.pages += o.pages
	s.rows += o.rows
	s.walks += o.walks
	s.busy += o.busy
	s.failed += o.failed
	s.largest = max(s.largest, o.largest)
	s.firstBusy = cmpOr(s.firstBusy, o.firstBusy)
	s.firstFail = cmpOr(s.firstFail, o.firstFail)
}

func (s *pagerStats) describe() string {
	sum := s.hist.Summary()
	line := fmt.Sprintf("%d requests: %d pages answered (%d rows, largest %s), %d whole histories read; %d answered busy, %d failed; latency p50 %s, p99 %s, max %s",
		s.requests, s.pages, s.rows, byteSize(s.largest), s.walks, s.busy, s.failed, fmtDur(sum.P50), fmtDur(sum.P99), fmtDur(sum.Max))
	if s.firstBusy != "" {
		line += "; busy: " + truncate(s.firstBusy, 200)
	}
	if s.firstFail != "" {
		line += "; first failure: " + s.firstFail
	}
	return line
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// etherscanPagers runs -reads-pagers clients that each read the busy
// address's whole history, page after page, over and over for -duration.
func (b *battery) etherscanPagers(ctx context.Context) *pagerStats {
	client := b.attackerHTTP(b.cfg.ReadsPagers)
	defer client.CloseIdleConnections()
	end := time.Now().Add(b.cfg.Duration)
	all := newPagerStats()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range b.cfg.ReadsPagers {
		wg.Go(func() {
			s := newPagerStats()
			for time.Now().Before(end) && ctx.Err() == nil {
				b.walkHistory(ctx, client, s, end)
			}
			mu.Lock()
			all.merge(s)
			mu.Unlock()
		})
	}
	wg.Wait()
	return all
}

// walkHistory reads the busy address's history from its first page until
// it has every entry, an answer has none, or one fails; a page the node
// was too busy for is asked again. It stops at end.
func (b *battery) walkHistory(ctx context.Context, client *http.Client, s *pagerStats, end time.Time) {
	rows := 0
	for page := 1; rows < b.history.txs; {
		if !time.Now().Before(end) || ctx.Err() != nil {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, b.cfg.RequestTimeout)
		r := b.etherscanPage(rctx, client, page, b.cfg.ReadsOffset)
		cancel()
		s.record(r)
		switch {
		case r.kind == pageBusy:
			continue
		case r.kind != pageRows || r.rows == 0:
			return
		}
		rows += r.rows
		page++
	}
	s.walks++
}

// faucetUnpayable asks the faucet, from one client, for drips to addresses
// that cannot receive ether (a precompile, which needs more gas than a
// transfer's, and the B20 factory, which has no receive function), then
// for one to a fresh account: the first must be refused with 400, and the
// refusals must spend no cooldown, so the last is paid.
func (b *battery) faucetUnpayable(ctx context.Context) outcome {
	var out outcome
	client := b.attackerHTTP(1)
	defer client.CloseIdleConnections()
	ecrecover := common.BytesToAddress([]byte{1})
	factory := common.HexToAddress("0xB20f000000000000000000000000000000000000")
	var fresh common.Address
	rand.Read(fresh[:])
	for _, c := range []struct {
		what string
		to   common.Address
		paid bool
	}{
		{"the ecrecover precompile", ecrecover, false},
		{"the B20 factory", factory, false},
		{"the ecrecover precompile again", ecrecover, false},
		{"a fresh account, from the same client", fresh, true},
	} {
		status, body, err := b.drip(ctx, client, c.to)
		if err != nil {
			out.err = fmt.Errorf("drip to %s: %w", c.what, err)
			return out
		}
		out.detailf("drip to %s (%s): HTTP %d %s", c.what, c.to.Hex(), status, truncate(body, 160))
		switch {
		case c.paid && status != http.StatusOK:
			out.unexpectedf("drip to %s: HTTP %d, want 200 (refused drips must not spend the client's cooldown)", c.what, status)
		case !c.paid && status != http.StatusBadRequest:
			out.unexpectedf("drip to %s: HTTP %d, want 400 (it cannot receive ether)", c.what, status)
		case !c.paid && !strings.Contains(body, "cannot receive ether"):
			out.unexpectedf("drip to %s: the answer does not say that it cannot receive ether: %s", c.what, truncate(body, 160))
		}
	}
	return out
}

// drip asks the faucet to drip to `to`.
func (b *battery) drip(ctx context.Context, client *http.Client, to common.Address) (int, string, error) {
	u := strings.TrimRight(b.cfg.URL, "/") + "/api/" + b.cfg.Network + "/faucet/drip"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(`{"address":"`+to.Hex()+`"}`))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	rctx, cancel := context.WithTimeout(ctx, b.cfg.StepTimeout)
	defer cancel()
	resp, err := client.Do(req.WithContext(rctx))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(body), err
}

// nosniff asks every JSON API of the node, answers and errors, and checks
// that each answer says X-Content-Type-Options: nosniff: a browser must not
// read a JSON answer (which may quote what a client wrote) as HTML.
func (b *battery) nosniff(ctx context.Context) outcome {
	var out outcome
	const rpc = "application/json"
	api := "/api/" + b.cfg.Network
	balance := "/api?module=account&action=balance&address=" + busyAddress.Hex()
	cases := []struct{ what, method, path, contentType, body string }{
		{"JSON-RPC", http.MethodPost, "/", rpc, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`},
		{"a JSON-RPC error", http.MethodPost, "/", rpc, `{"jsonrpc":"2.0","id":1,"method":"no_such_method","params":[]}`},
		{"JSON-RPC of another content type", http.MethodPost, "/", "text/plain", `{}`},
		{"GET /health", http.MethodGet, "/health", "", ""},
		{"the REST API", http.MethodGet, "/v1/tokenized-stocks/chains", "", ""},
		{"a REST error", http.MethodGet, "/v1/tokenized-stocks/total-supply/0x1", "", ""},
		{"the faucet's status", http.MethodGet, api + "/faucet/status", "", ""},
		{"a faucet error", http.MethodPost, api + "/faucet/drip", "text/plain", `{}`},
		{"chain-health", http.MethodGet, api + "/chain-health", "", ""},
		{"the Etherscan API", http.MethodGet, balance, "", ""},
		{"an Etherscan error", http.MethodGet, "/api?module=none", "", ""},
		{"an unknown path", http.MethodGet, "/no/such/path", "", ""},
	}
	client := b.freshClient()
	missing := 0
	for _, c := range cases {
		status, header, err := b.headerOf(ctx, client, c.method, c.path, c.contentType, c.body)
		if err != nil {
			out.unexpectedf("%s (%s %s): %v", c.what, c.method, c.path, err)
			continue
		}
		if header != "nosniff" {
			missing++
			out.unexpectedf("%s (%s %s): HTTP %d with X-Content-Type-Options %q, want nosniff", c.what, c.method, c.path, status, header)
		}
	}
	out.detailf("%d answers of the JSON APIs and their errors, %d without X-Content-Type-Options: nosniff", len(cases), missing)
	return out
}

// headerOf sends one request and returns the status and the answer's
// X-Content-Type-Options.
func (b *battery) headerOf(ctx context.Context, client *http.Client, method, path, contentType, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(b.cfg.URL, "/")+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header.Get("X-Content-Type-Options"), nil
}
