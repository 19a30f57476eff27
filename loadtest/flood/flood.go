// Package flood is loadtest's flood mode: signed transfers from many funded
// accounts sent as fast as the server answers (or at an offered rate), and
// the times until each is pending, sealed and has a receipt.
package flood

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/pacer"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/target"
	"github.com/stocknode/stocknode/loadtest/workload"
)

// Config is a flood: where it goes, from how many accounts and senders, for
// how long, and at what offered rate (Flags gives the defaults).
type Config struct {
	URL           string
	Accounts      int
	Senders       int
	Duration      time.Duration
	FundETH       int64
	FeeCapGwei    int64
	TipGwei       int64
	Poll          time.Duration
	Drain         time.Duration
	ReceiptSample int
	FundTimeout   time.Duration
	Rate          float64
	To            string // every transfer's recipient; empty: the next sending account
	Presign       int    // transfers of each account signed before sending starts
	// Stop, when set, ends the sending early when it closes: a caller
	// that floods until its own work is done (loadtest failover).
	Stop <-chan struct{}
}

// Flags registers the flood mode's flags on fs and returns the Config they
// fill.
func Flags(fs *flag.FlagSet) *Config {
	c := new(Config)
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8545", "JSON-RPC HTTP endpoint")
	fs.IntVar(&c.Accounts, "accounts", 1024, "sending accounts (keys keccak256(\"loadtest\"+i)), funded first from the development accounts")
	fs.IntVar(&c.Senders, "senders", 64, "sending goroutines (one connection each), each owning a disjoint set of accounts")
	fs.DurationVar(&c.Duration, "duration", 6*time.Second, "how long transactions are sent")
	fs.Int64Var(&c.FundETH, "fund", 10, "ether each sending account is funded with (when it holds less than half of it)")
	fs.Int64Var(&c.FeeCapGwei, "feecap", 100, "max fee per gas of the transfers, gwei")
	fs.Int64Var(&c.TipGwei, "tip", 1, "max priority fee per gas of the transfers, gwei")
	fs.DurationVar(&c.Poll, "poll", 40*time.Millisecond, "interval of the block and receipt pollers (the resolution of the inclusion times)")
	fs.DurationVar(&c.Drain, "drain", 5*time.Second, "how long to wait, after sending stops, for accepted transactions to be sealed")
	fs.IntVar(&c.ReceiptSample, "receipt-sample", 20, "poll the receipt of every n-th accepted transaction (0: none)")
	fs.DurationVar(&c.FundTimeout, "fund-timeout", 60*time.Second, "how long funding may take (the server must produce blocks)")
	fs.Float64Var(&c.Rate, "rate", 0, "transfers/s to offer in all, spread evenly over the senders (0: each sender sends its next transfer as soon as the last is answered). Unpaced, a server that accepts more than the chain's blocks hold builds a backlog, and the times to pending and latest then measure the backlog; paced below capacity they measure the sequencer")
	fs.IntVar(&c.Presign, "presign", DefaultPresign, "transfers of each account signed before sending starts, at most 65,536 in all; the rest are signed while sending, on the CPU a server on the same machine would have (0: sign every transfer while sending)")
	fs.StringVar(&c.To, "to", "", "send every transfer to this address (a busy address's history, for the explorer); default: each account pays the next")
	return c
}

type floodBlocks struct {
	Count      int     `json:"count"`
	TxsMean    float64 `json:"txsMean"`
	TxsMax     int     `json:"txsMax"`
	GasUsedMax uint64  `json:"gasUsedMax"`
	GasLimit   uint64  `json:"gasLimit"`
}

// Report is what a flood measured: transactions accepted, rejected and
// included, and the times from send to pending, latest and receipt.
type Report struct {
	URL      string  `json:"url"`
	Accounts int     `json:"accounts"`
	Senders  int     `json:"senders"`
	Rate     float64 `json:"offeredRate,omitempty"`
	Seconds  float64 `json:"seconds"`
	FundTime float64 `json:"fundingSeconds"`
	// Presigned transfers, signed in PresignTime before sending started.
	Presigned   int     `json:"presigned"`
	PresignTime float64 `json:"presignSeconds"`

	Attempts        int               `json:"attempts"`
	Accepted        int               `json:"accepted"`
	AcceptedPerSec  float64           `json:"acceptedPerSecond"`
	AlreadyKnown    int               `json:"alreadyKnown,omitempty"`
	Rejected        int               `json:"rejected"`
	RejectedBy      map[string]int    `json:"rejectedBy,omitempty"`
	TransportErrors int               `json:"transportErrors"`
	SendLatency     latency.Durations `json:"sendLatency"`

	IncludedInWindow int     `json:"includedInWindow"`
	IncludedPerSec   float64 `json:"includedPerSecond"`
	Included         int     `json:"includedAfterDrain"`
	NotIncluded      int     `json:"notIncluded"`
	SeenPending      int     `json:"seenInPendingBeforeLatest"`

	TimeToPending latency.Durations `json:"timeToPending"`
	TimeToLatest  latency.Durations `json:"timeToLatest"`
	TimeToReceipt latency.Durations `json:"timeToReceipt"`
	Blocks        floodBlocks       `json:"blocksInWindow"`
	PollInterval  string            `json:"pollInterval"`
}

func (r Report) String() string {
	var b strings.Builder
	offered := ""
	if r.Rate > 0 {
		offered = fmt.Sprintf(", %.0f transfers/s offered", r.Rate)
	}
	fmt.Fprintf(&b, "flood %s: %d accounts, %d senders%s, %.1fs (funding took %.1fs, presigning %d transfers %.1fs)\n",
		r.URL, r.Accounts, r.Senders, offered, r.Seconds, r.FundTime, r.Presigned, r.PresignTime)
	fmt.Fprintf(&b, "accepted %d (%.0f/s) of %d sent; rejected %d; transport errors %d", r.Accepted, r.AcceptedPerSec, r.Attempts, r.Rejected, r.TransportErrors)
	if r.AlreadyKnown > 0 {
		fmt.Fprintf(&b, "; already known %d", r.AlreadyKnown)
	}
	b.WriteByte('\n')
	msgs := make([]string, 0, len(r.RejectedBy))
	for m := range r.RejectedBy {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b string) int { return r.RejectedBy[b] - r.RejectedBy[a] })
	for _, m := range msgs {
		fmt.Fprintf(&b, "  rejected %6d  %s\n", r.RejectedBy[m], m)
	}
	fmt.Fprintf(&b, "send round trip: %v\n", r.SendLatency)
	fmt.Fprintf(&b, "included %.0f/s in the window (%d); %d after draining, %d never; %d seen in pending before latest\n",
		r.IncludedPerSec, r.IncludedInWindow, r.Included, r.NotIncluded, r.SeenPending)
	fmt.Fprintf(&b, "blocks in window %d: %.1f txs mean, %d max, gas used max %d of %d\n", r.Blocks.Count, r.Blocks.TxsMean, r.Blocks.TxsMax, r.Blocks.GasUsedMax, r.Blocks.GasLimit)
	fmt.Fprintf(&b, "time to pending: %v\ntime to latest:  %v\ntime to receipt: %v (sampled)\n(poll interval %s: times are up to one interval late)",
		r.TimeToPending, r.TimeToLatest, r.TimeToReceipt, r.PollInterval)
	return b.String()
}

// floodAccount is one sending account; exactly one sender goroutine owns it.
type floodAccount struct {
	index   int
	key     *ecdsa.PrivateKey
	addr    common.Address
	nonce   uint64
	blocked time.Time
	// presigned are its next transfers, signed before sending started,
	// in nonce order, all to presignedTo.
	presigned   []signedTransfer
	presignedTo common.Address
}

// sentTx is one accepted transaction.
type sentTx struct {
	hash common.Hash
	at   time.Time
}

// senderStats is one sender goroutine's record.
type senderStats struct {
	sent                   []sentTx
	attempts, alreadyKnown int
	rejected               map[string]int
	transport              int
	latency                *latency.Hist
}

// Run funds the accounts, floods the node with signed transfers for
// cfg.Duration, waits for what was accepted to be sealed, and reports.
func Run(ctx context.Context, cfg Config) (Report, error) {
	report := Report{URL: cfg.URL, Accounts: cfg.Accounts, Senders: cfg.Senders, Rate: cfg.Rate, PollInterval: cfg.Poll.String()}
	if err := target.CheckLoopback(cfg.URL); err != nil {
		return report, err
	}
	if cfg.Accounts < 1 || cfg.Senders < 1 {
		return report, errors.New("-accounts and -senders must be positive")
	}
	if cfg.Rate < 0 {
		return report, fmt.Errorf("-rate %v: want transfers/s, or 0 for as fast as the server answers", cfg.Rate)
	}
	var sink *common.Address
	if cfg.To != "" {
		if !common.IsHexAddress(cfg.To) {
			return report, fmt.Errorf("-to %q is not an address", cfg.To)
		}
		to := common.HexToAddress(cfg.To)
		sink = &to
	}
	cfg.Senders = min(cfg.Senders, cfg.Accounts)
	report.Senders = cfg.Senders
	client, err := rpcclient.New(cfg.URL, cfg.Senders+8)
	if err != nil {
		return report, err
	}
	chainID, signer, err := client.ChainSigner()
	if err != nil {
		return report, err
	}
	accounts := make([]*floodAccount, cfg.Accounts)
	for i := range accounts {
		key := workload.FloodKey(i)
		accounts[i] = &floodAccount{index: i, key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	}
	feeCap := new(big.Int).Mul(big.NewInt(cfg.FeeCapGwei), big.NewInt(params.GWei))
	tip := new(big.Int).Mul(big.NewInt(cfg.TipGwei), big.NewInt(params.GWei))

	fundStart := time.Now()
	if err := fundAccounts(ctx, client, signer, chainID, accounts, cfg, feeCap, tip); err != nil {
		return report, err
	}
	report.FundTime = time.Since(fundStart).Seconds()
	if err := loadNonces(client, accounts); err != nil {
		return report, err
	}
	recipient := func(a *floodAccount) common.Address {
		if sink != nil {
			return *sink
		}
		return accounts[(a.index+1)%len(accounts)].addr
	}
	presignStart, perAccount := time.Now(), presignCount(cfg.Presign, len(accounts))
	if err := presign(newTransfer(signer, chainID, feeCap, tip), accounts, perAccount, recipient); err != nil {
		return report, err
	}
	report.Presigned, report.PresignTime = perAccount*len(accounts), time.Since(presignStart).Seconds()

	// The pollers start at the current head: everything sealed from now on is the flood's.
	var head struct {
		Number hexutil.Uint64 `json:"number"`
	}
	if err := client.Call(&head, "eth_getBlockByNumber", "latest", false); err != nil {
		return report, err
	}
	poller := newBlockPoller(client, uint64(head.Number))
	receipts := newReceiptPoller(client)
	stopPolling := make(chan struct{})
	var pollWG sync.WaitGroup
	pollWG.Add(2)
	go func() { defer pollWG.Done(); poller.run(cfg.Poll, stopPolling) }()
	go func() { defer pollWG.Done(); receipts.run(cfg.Poll, stopPolling) }()

	start := time.Now()
	end := start.Add(cfg.Duration)
	sending := window{end: end, stop: cfg.Stop}
	stats := make([]*senderStats, cfg.Senders)
	var acceptedSoFar atomic.Int64
	var wg sync.WaitGroup
	for g := range cfg.Senders {
		var own []*floodAccount
		for i := g; i < len(accounts); i += cfg.Senders {
			own = append(own, accounts[i])
		}
		st := &senderStats{rejected: map[string]int{}, latency: latency.New()}
		stats[g] = st
		wg.Add(1)
		go func() {
			defer wg.Done()
			pace := pacer.New(cfg.Rate, cfg.Senders, g, start)
			floodSender(ctx, client, newTransfer(signer, chainID, feeCap, tip), own, recipient, sending, cfg.ReceiptSample, receipts, &acceptedSoFar, st, pace)
		}()
	}
	wg.Wait()
	sendEnd := time.Now()
	report.Seconds = sendEnd.Sub(start).Seconds()

	sentAt := map[common.Hash]time.Time{}
	var sendHist = latency.New()
	report.RejectedBy = map[string]int{}
	for _, st := range stats {
		report.Attempts += st.attempts
		report.AlreadyKnown += st.alreadyKnown
		report.TransportErrors += st.transport
		for m, n := range st.rejected {
			report.RejectedBy[m] += n
			report.Rejected += n
		}
		for _, s := range st.sent {
			sentAt[s.hash] = s.at
		}
		sendHist.Merge(st.latency)
	}
	report.Accepted = len(sentAt)
	report.AcceptedPerSec = float64(report.Accepted) / report.Seconds
	report.SendLatency = sendHist.Summary()

	// Drain: wait until every accepted transaction is sealed, or the drain time is up.
	drainEnd := time.Now().Add(cfg.Drain)
	for time.Now().Before(drainEnd) && ctx.Err() == nil {
		if poller.countSealed(sentAt) >= len(sentAt) && receipts.outstanding() == 0 {
			break
		}
		time.Sleep(cfg.Poll)
	}
	close(stopPolling)
	pollWG.Wait()

	var toPending, toLatest, toReceipt []time.Duration
	for h, at := range sentAt {
		sealed, inLatest := poller.latest[h]
		pend, inPending := poller.pending[h]
		if inLatest {
			report.Included++
			if !sealed.After(end) {
				report.IncludedInWindow++
			}
			toLatest = append(toLatest, sealed.Sub(at))
			if inPending && pend.Before(sealed) {
				report.SeenPending++
			}
		}
		switch {
		case inPending && (!inLatest || pend.Before(sealed)):
			toPending = append(toPending, pend.Sub(at))
		case inLatest: // pending is never behind latest: where pending == latest, this is when it was pending
			toPending = append(toPending, sealed.Sub(at))
		}
		if r, ok := receipts.seen[h]; ok {
			toReceipt = append(toReceipt, r.Sub(at))
		}
	}
	report.NotIncluded = report.Accepted - report.Included
	report.IncludedPerSec = float64(report.IncludedInWindow) / cfg.Duration.Seconds()
	report.TimeToPending, report.TimeToLatest, report.TimeToReceipt = latency.Summarize(toPending), latency.Summarize(toLatest), latency.Summarize(toReceipt)
	var txs int
	for _, b := range poller.blocks {
		if b.seen.After(end) {
			continue
		}
		report.Blocks.Count++
		txs += b.txs
		report.Blocks.TxsMax = max(report.Blocks.TxsMax, b.txs)
		report.Blocks.GasUsedMax = max(report.Blocks.GasUsedMax, b.gasUsed)
		report.Blocks.GasLimit = b.gasLimit
	}
	if report.Blocks.Count > 0 {
		report.Blocks.TxsMean = float64(txs) / float64(report.Blocks.Count)
	}
	if poller.err != nil && report.Included == 0 {
		return report, fmt.Errorf("block poller: %w", poller.err)
	}
	return report, nil
}

// fundAccounts sends fund ether from the first development accounts to every
// flood account that holds less than half of it, in JSON-RPC batches, and
// waits until the funders' transactions are sealed.
func fundAccounts(ctx context.Context, client *rpcclient.Client, signer types.Signer, chainID *big.Int, accounts []*floodAccount, cfg Config, feeCap, tip *big.Int) error {
	fund := new(big.Int).Mul(big.NewInt(cfg.FundETH), big.NewInt(params.Ether))
	half := new(big.Int).Rsh(fund, 1)
	balances := make([]hexutil.Big, len(accounts))
	if err := batched(client, len(accounts), 256, func(i int) *rpcclient.BatchCall {
		return &rpcclient.BatchCall{Method: "eth_getBalance", Params: []any{accounts[i].addr, "latest"}, Result: &balances[i]}
	}); err != nil {
		return fmt.Errorf("flood account balances: %w", err)
	}
	var need []*floodAccount
	for i, a := range accounts {
		if balances[i].ToInt().Cmp(half) < 0 {
			need = append(need, a)
		}
	}
	if len(need) == 0 {
		return nil
	}
	funders := workload.FloodFunders
	finalNonce := make([]uint64, funders)
	errs := make([]error, funders)
	var wg sync.WaitGroup
	for f := range funders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := workload.DevKey(f)
			from := crypto.PubkeyToAddress(key.PublicKey)
			var nonce hexutil.Uint64
			if err := client.Call(&nonce, "eth_getTransactionCount", from, "pending"); err != nil {
				errs[f] = err
				return
			}
			var calls []*rpcclient.BatchCall
			n := uint64(nonce)
			for i := f; i < len(need); i += funders {
				tx, err := workload.SignTransfer(signer, chainID, key, n, need[i].addr, fund, feeCap, tip)
				if err != nil {
					errs[f] = err
					return
				}
				raw, _ := tx.MarshalBinary()
				calls = append(calls, &rpcclient.BatchCall{Method: "eth_sendRawTransaction", Params: []any{hexutil.Bytes(raw)}})
				n++
			}
			finalNonce[f] = n
			for i := 0; i < len(calls); i += 64 {
				part := calls[i:min(len(calls), i+64)]
				if err := client.Batch(part); err != nil {
					errs[f] = fmt.Errorf("funding from %s: %w", from, err)
					return
				}
				for _, bc := range part {
					if bc.Err != nil && !strings.Contains(bc.Err.Error(), "already known") {
						errs[f] = fmt.Errorf("funding from %s: %w", from, bc.Err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	deadline := time.Now().Add(cfg.FundTimeout)
	for {
		counts := make([]hexutil.Uint64, funders)
		if err := batched(client, funders, funders, func(i int) *rpcclient.BatchCall {
			return &rpcclient.BatchCall{Method: "eth_getTransactionCount", Params: []any{workload.DevAddress(i), "latest"}, Result: &counts[i]}
		}); err != nil {
			return err
		}
		done := true
		for i := range funders {
			if uint64(counts[i]) < finalNonce[i] {
				done = false
			}
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("funding %d accounts: transactions not sealed after %v (does the server produce blocks?)", len(need), cfg.FundTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// batched runs n calls made by mk in JSON-RPC batches of size and fails on the first error.
func batched(client *rpcclient.Client, n, size int, mk func(i int) *rpcclient.BatchCall) error {
	for lo := 0; lo < n; lo += size {
		var calls []*rpcclient.BatchCall
		for i := lo; i < min(n, lo+size); i++ {
			calls = append(calls, mk(i))
		}
		if err := client.Batch(calls); err != nil {
			return err
		}
		for _, bc := range calls {
			if bc.Err != nil {
				return fmt.Errorf("%s: %w", bc.Method, bc.Err)
			}
		}
	}
	return nil
}

func loadNonces(client *rpcclient.Client, accounts []*floodAccount) error {
	nonces := make([]hexutil.Uint64, len(accounts))
	if err := batched(client, len(accounts), 256, func(i int) *rpcclient.BatchCall {
		return &rpcclient.BatchCall{Method: "eth_getTransactionCount", Params: []any{accounts[i].addr, "pending"}, Result: &nonces[i]}
	}); err != nil {
		return fmt.Errorf("flood account nonces: %w", err)
	}
	for i, a := range accounts {
		a.nonce = uint64(nonces[i])
	}
	return nil
}

var (
	sendPrefix = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x`)
	sendSuffix = []byte(`"]}`)
)

// window is when transfers are sent: until end, or until stop closes.
type window struct {
	end  time.Time
	stop <-chan struct{}
}

func (w window) over(now time.Time) bool {
	select {
	case <-w.stop:
		return true
	default:
		return !now.Before(w.end)
	}
}

// floodSender sends transfers from its own accounts, round robin, as fast as
// the server answers or as pace allows, until end. A rejected account rests
// 20 ms; a nonce the server calls too low is read again.
func floodSender(ctx context.Context, client *rpcclient.Client, transfers *transfer, own []*floodAccount, recipient func(*floodAccount) common.Address,
	sending window, sampleEvery int, receipts *receiptPoller, accepted *atomic.Int64, st *senderStats, pace *pacer.Pacer) {
	next := 0
	idle := 0
	for ctx.Err() == nil {
		now := time.Now()
		if sending.over(now) {
			return
		}
		a := own[next]
		next = (next + 1) % len(own)
		if now.Before(a.blocked) {
			if idle++; idle >= len(own) {
				time.Sleep(time.Millisecond)
				idle = 0
			}
			continue
		}
		idle = 0
		hash, body, err := transfers.next(a, recipient(a))
		if err != nil {
			st.rejected["sign: "+err.Error()]++
			return
		}
		if pace.Wait(); sending.over(time.Now()) {
			return
		}
		st.attempts++
		t0 := time.Now()
		resp, err := client.Post(body)
		st.latency.Record(time.Since(t0))
		if err != nil {
			st.transport++
			a.blocked = time.Now().Add(50 * time.Millisecond)
			continue
		}
		if !bytes.Contains(resp, rpcclient.ErrorMember) {
			a.sent()
			st.sent = append(st.sent, sentTx{hash: hash, at: t0})
			if n := accepted.Add(1); sampleEvery > 0 && n%int64(sampleEvery) == 0 {
				receipts.add(hash)
			}
			continue
		}
		var env rpcclient.Envelope
		msg := "unparsable error response"
		if json.Unmarshal(resp, &env) == nil && env.Error != nil {
			msg = env.Error.Message
		}
		switch low := strings.ToLower(msg); {
		case strings.Contains(low, "already known") || strings.Contains(low, "already imported"):
			// An earlier send that timed out did reach the pool.
			st.alreadyKnown++
			a.sent()
			continue
		case strings.Contains(low, "nonce too low"):
			var nonce hexutil.Uint64
			if client.Call(&nonce, "eth_getTransactionCount", a.addr, "pending") == nil {
				a.nonce = uint64(nonce)
			}
		}
		st.rejected[rpcclient.NormalizeReject(msg)]++
		a.blocked = time.Now().Add(20 * time.Millisecond)
	}
}

// blockPoller records when each transaction hash is first seen in the
// pending block and in a sealed (latest) block. Only its goroutine writes its
// maps until run returns.
type blockPoller struct {
	client  *rpcclient.Client
	last    uint64
	latest  map[common.Hash]time.Time
	pending map[common.Hash]time.Time
	blocks  []polledBlock
	mu      sync.Mutex // held by poll; countSealed reads latest while polling goes on
	err     error
}

type polledBlock struct {
	number, gasUsed, gasLimit uint64
	txs                       int
	seen                      time.Time
}

type rpcBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	GasUsed      hexutil.Uint64 `json:"gasUsed"`
	GasLimit     hexutil.Uint64 `json:"gasLimit"`
	Transactions []common.Hash  `json:"transactions"`
}

func newBlockPoller(client *rpcclient.Client, head uint64) *blockPoller {
	return &blockPoller{client: client, last: head, latest: map[common.Hash]time.Time{}, pending: map[common.Hash]time.Time{}}
}

func (p *blockPoller) run(interval time.Duration, stop <-chan struct{}) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		p.poll()
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
	}
}

func (p *blockPoller) poll() {
	var latest, pending *rpcBlock
	calls := []*rpcclient.BatchCall{
		{Method: "eth_getBlockByNumber", Params: []any{"latest", false}, Result: &latest},
		{Method: "eth_getBlockByNumber", Params: []any{"pending", false}, Result: &pending},
	}
	if err := p.client.Batch(calls); err != nil {
		p.err = err
		return
	}
	now := time.Now()
	if calls[0].Err != nil || latest == nil {
		p.err = fmt.Errorf("latest block: %v", calls[0].Err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// Blocks sealed between two polls are fetched by number.
	for n := p.last + 1; n < uint64(latest.Number); n++ {
		var b *rpcBlock
		if err := p.client.Call(&b, "eth_getBlockByNumber", hexutil.Uint64(n), false); err != nil || b == nil {
			p.err = fmt.Errorf("block %d: %v", n, err)
			return
		}
		p.addSealed(b, now)
	}
	if uint64(latest.Number) > p.last {
		p.addSealed(latest, now)
	}
	if calls[1].Err == nil && pending != nil {
		for _, h := range pending.Transactions {
			if _, ok := p.pending[h]; !ok {
				p.pending[h] = now
			}
		}
	}
}

func (p *blockPoller) addSealed(b *rpcBlock, now time.Time) {
	p.last = uint64(b.Number)
	p.blocks = append(p.blocks, polledBlock{number: uint64(b.Number), gasUsed: uint64(b.GasUsed), gasLimit: uint64(b.GasLimit), txs: len(b.Transactions), seen: now})
	for _, h := range b.Transactions {
		if _, ok := p.latest[h]; !ok {
			p.latest[h] = now
		}
	}
}

// countSealed is how many of sent have been seen sealed.
func (p *blockPoller) countSealed(sent map[common.Hash]time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for h := range sent {
		if _, ok := p.latest[h]; ok {
			n++
		}
	}
	return n
}

// receiptPoller polls eth_getTransactionReceipt, in batches, for a sample of
// the accepted transactions and records when each receipt first answers.
type receiptPoller struct {
	client *rpcclient.Client
	in     chan common.Hash
	wait   []common.Hash
	seen   map[common.Hash]time.Time
	left   atomic.Int64
}

func newReceiptPoller(client *rpcclient.Client) *receiptPoller {
	return &receiptPoller{client: client, in: make(chan common.Hash, 1<<14), seen: map[common.Hash]time.Time{}}
}

// Add queues h; a full queue drops it (the sample only gets smaller).
func (p *receiptPoller) add(h common.Hash) {
	select {
	case p.in <- h:
		p.left.Add(1)
	default:
	}
}

func (p *receiptPoller) outstanding() int64 { return p.left.Load() }

func (p *receiptPoller) run(interval time.Duration, stop <-chan struct{}) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
	drain:
		for {
			select {
			case h := <-p.in:
				p.wait = append(p.wait, h)
			default:
				break drain
			}
		}
		if len(p.wait) == 0 {
			continue
		}
		part := p.wait[:min(len(p.wait), 256)]
		results := make([]json.RawMessage, len(part))
		calls := make([]*rpcclient.BatchCall, len(part))
		for i, h := range part {
			calls[i] = &rpcclient.BatchCall{Method: "eth_getTransactionReceipt", Params: []any{h}, Result: &results[i]}
		}
		if p.client.Batch(calls) != nil {
			continue
		}
		now := time.Now()
		var still []common.Hash
		for i, h := range part {
			if calls[i].Err == nil && len(results[i]) > 0 && string(results[i]) != "null" {
				p.seen[h] = now
				p.left.Add(-1)
			} else {
				still = append(still, h)
			}
		}
		p.wait = append(still, p.wait[len(part):]...)
	}
}
