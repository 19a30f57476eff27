// Package txsync is loadtest's txsync mode: how long a client waits from
// sending a transfer until it holds the receipt, per view (/ and /preconf)
// and per way of asking: one eth_sendRawTransactionSync (EIP-7966), or
// eth_sendRawTransaction and eth_getTransactionReceipt polled every -poll
// (at once after the send, then on the interval). A few senders, each with
// its own account, send one transfer at a time after a random pause of up
// to a block time (so that sends fall anywhere in a block), cycling through
// the combinations so that each sees the same conditions. Run it alone for
// the idle node, and beside `loadtest flood -rate 5000` for a busy one.
package txsync

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
	"github.com/stocknode/stocknode/loadtest/target"
	"github.com/stocknode/stocknode/loadtest/workload"
)

// Config is a send-to-receipt measurement: the endpoint, the paths and
// methods to compare, and the samples of each (Flags gives the defaults).
type Config struct {
	URL     string
	Paths   string
	Methods string
	Senders int
	Samples int
	Poll    time.Duration
	Pause   time.Duration
	Timeout time.Duration
	Funder  int
}

// Flags registers the txsync mode's flags on fs and returns the Config they
// fill.
func Flags(fs *flag.FlagSet) *Config {
	c := new(Config)
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8545", "the node's JSON-RPC base URL; -paths are appended")
	fs.StringVar(&c.Paths, "paths", "/,/preconf", "views to measure: / (sealed receipts) and /preconf (pre-confirmed ones)")
	fs.StringVar(&c.Methods, "methods", "sync,poll", "sync: eth_sendRawTransactionSync; poll: eth_sendRawTransaction, then eth_getTransactionReceipt every -poll")
	fs.IntVar(&c.Senders, "senders", 4, "senders, each with its own account, each with one transfer in flight")
	fs.IntVar(&c.Samples, "samples", 400, "transfers per view and method")
	fs.DurationVar(&c.Poll, "poll", 10*time.Millisecond, "receipt polling interval of the poll method")
	fs.DurationVar(&c.Pause, "pause", 200*time.Millisecond, "a sender waits a random time up to this between its transfers: at least a block time, so that a send's place in the block is uniform whatever the last one's was")
	fs.DurationVar(&c.Timeout, "timeout", 5*time.Second, "eth_sendRawTransactionSync's timeout parameter, and the poll method's give-up")
	fs.IntVar(&c.Funder, "funder", 9, "development account that funds the senders (the flood's funders are 0-7)")
	return c
}

// txsyncCombo is one view and method.
type txsyncCombo struct{ path, method string }

func (c txsyncCombo) String() string { return c.method + " " + c.path }

type txsyncResult struct {
	View    string            `json:"view"`
	Method  string            `json:"method"`
	Latency latency.Durations `json:"latency"`
	// Send is the poll method's eth_sendRawTransaction alone: the part of
	// the latency that admission and the sequencer's log take.
	Send   *latency.Durations `json:"send,omitempty"`
	Errors map[string]int     `json:"errors,omitempty"`
}

// Report is the send-to-receipt latency of each path and method combination.
type Report struct {
	URL     string         `json:"url"`
	Senders int            `json:"senders"`
	Poll    string         `json:"pollInterval"`
	Seconds float64        `json:"seconds"`
	Results []txsyncResult `json:"results"`
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "txsync %s: %d senders, %.1fs, receipt polling every %s\n", r.URL, r.Senders, r.Seconds, r.Poll)
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%-5s %-9s %v\n", res.Method, res.View, res.Latency)
		if res.Send != nil {
			fmt.Fprintf(&b, "      send alone  %v\n", *res.Send)
		}
		for msg, n := range res.Errors {
			fmt.Fprintf(&b, "      error %5d  %s\n", n, msg)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Run sends cfg.Samples transfers through each combination and reports the
// time until each one's receipt.
func Run(ctx context.Context, cfg Config) (Report, error) {
	report := Report{URL: cfg.URL, Senders: cfg.Senders, Poll: cfg.Poll.String()}
	if err := target.CheckLoopback(cfg.URL); err != nil {
		return report, err
	}
	combos, err := txsyncCombos(cfg)
	if err != nil {
		return report, err
	}
	base := strings.TrimRight(cfg.URL, "/")
	client, err := rpcclient.New(base+"/", 4)
	if err != nil {
		return report, err
	}
	chainID, signer, err := client.ChainSigner()
	if err != nil {
		return report, err
	}
	senders := make([]*txsyncSender, cfg.Senders)
	for i := range senders {
		if senders[i], err = newTxsyncSender(base, i, combos, signer, chainID); err != nil {
			return report, err
		}
	}
	if err := fundTxsync(ctx, client, signer, chainID, cfg.Funder, senders); err != nil {
		return report, err
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := cfg.Samples * len(combos) / cfg.Senders
			s.run(ctx, cfg, n, i)
		}()
	}
	wg.Wait()
	report.Seconds = time.Since(start).Seconds()
	for i, c := range combos {
		res := txsyncResult{View: c.path, Method: c.method, Errors: map[string]int{}}
		var all, sends []time.Duration
		for _, s := range senders {
			all = append(all, s.latency[i]...)
			sends = append(sends, s.sends[i]...)
			for msg, n := range s.errors[i] {
				res.Errors[msg] += n
			}
		}
		res.Latency = latency.Summarize(all)
		if len(sends) > 0 {
			send := latency.Summarize(sends)
			res.Send = &send
		}
		report.Results = append(report.Results, res)
	}
	return report, ctx.Err()
}

func txsyncCombos(cfg Config) ([]txsyncCombo, error) {
	if cfg.Senders < 1 || cfg.Samples < 1 || cfg.Poll <= 0 || cfg.Timeout < time.Millisecond {
		return nil, errors.New("-senders, -samples, -poll and -timeout must be positive")
	}
	var combos []txsyncCombo
	for _, p := range strings.Split(cfg.Paths, ",") {
		for _, m := range strings.Split(cfg.Methods, ",") {
			if m != "sync" && m != "poll" {
				return nil, fmt.Errorf("-methods: %q is neither sync nor poll", m)
			}
			combos = append(combos, txsyncCombo{path: strings.TrimSpace(p), method: m})
		}
	}
	return combos, nil
}

// txsyncSender is one account sending one transfer at a time.
type txsyncSender struct {
	key     *ecdsa.PrivateKey
	addr    common.Address
	nonce   uint64
	signer  types.Signer
	chainID *big.Int
	combos  []txsyncCombo
	clients []*rpcclient.Client // one per combo's view
	latency [][]time.Duration
	sends   [][]time.Duration // the poll method's eth_sendRawTransaction
	errors  []map[string]int
}

func newTxsyncSender(base string, i int, combos []txsyncCombo, signer types.Signer, chainID *big.Int) (*txsyncSender, error) {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("txsync" + strconv.Itoa(i))))
	if err != nil {
		return nil, err
	}
	s := &txsyncSender{key: key, addr: crypto.PubkeyToAddress(key.PublicKey), signer: signer, chainID: chainID, combos: combos,
		latency: make([][]time.Duration, len(combos)), sends: make([][]time.Duration, len(combos)), errors: make([]map[string]int, len(combos))}
	for j, c := range combos {
		cl, err := rpcclient.New(base+c.path, 1)
		if err != nil {
			return nil, err
		}
		s.clients = append(s.clients, cl)
		s.errors[j] = map[string]int{}
	}
	return s, nil
}

// fundTxsync gives each sender 1 ETH from the funder, and waits until the
// transfers are sealed and the senders' nonces read.
func fundTxsync(ctx context.Context, client *rpcclient.Client, signer types.Signer, chainID *big.Int, funder int, senders []*txsyncSender) error {
	key := workload.DevKey(funder)
	var nonce hexutil.Uint64
	if err := client.Call(&nonce, "eth_getTransactionCount", crypto.PubkeyToAddress(key.PublicKey), "pending"); err != nil {
		return err
	}
	fee := big.NewInt(100 * params.GWei)
	var last common.Hash
	for i, s := range senders {
		tx, err := workload.SignTransfer(signer, chainID, key, uint64(nonce)+uint64(i), s.addr, big.NewInt(params.Ether), fee, big.NewInt(params.GWei))
		if err != nil {
			return err
		}
		raw, _ := tx.MarshalBinary()
		if err := client.Call(&last, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
			return fmt.Errorf("fund sender %d: %w", i, err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		var receipt json.RawMessage
		if err := client.Call(&receipt, "eth_getTransactionReceipt", last); err != nil {
			return err
		}
		if string(receipt) != "null" {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.New("funding the senders: not sealed within 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, s := range senders {
		if err := s.readNonce(); err != nil {
			return err
		}
	}
	return nil
}

func (s *txsyncSender) readNonce() error {
	var nonce hexutil.Uint64
	if err := s.clients[0].Call(&nonce, "eth_getTransactionCount", s.addr, "pending"); err != nil {
		return err
	}
	s.nonce = uint64(nonce)
	return nil
}

// run sends n transfers, cycling through the combinations from the
// offset-th.
func (s *txsyncSender) run(ctx context.Context, cfg Config, n, offset int) {
	fee, tip := big.NewInt(100*params.GWei), big.NewInt(params.GWei)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		// The client's think time: a send falls anywhere in a block
		// however the last one ended (at a seal, at a pre-confirmation).
		time.Sleep(rand.N(cfg.Pause + 1))
		j := (i + offset) % len(s.combos)
		tx, err := workload.SignTransfer(s.signer, s.chainID, s.key, s.nonce, s.addr, big.NewInt(1), fee, tip)
		if err != nil {
			s.errors[j]["sign: "+err.Error()]++
			return
		}
		raw, _ := tx.MarshalBinary()
		var took time.Duration
		if s.combos[j].method == "sync" {
			took, err = s.sync(s.clients[j], raw, cfg.Timeout)
		} else {
			took, err = s.poll(s.clients[j], raw, tx.Hash(), cfg, &s.sends[j])
		}
		s.record(j, took, err)
	}
}

// Record keeps a latency, or counts an error and finds the nonce again.
func (s *txsyncSender) record(j int, took time.Duration, err error) {
	var rerr *rpcclient.Error
	switch {
	case err == nil:
		s.latency[j] = append(s.latency[j], took)
		s.nonce++
	case errors.As(err, &rerr) && rerr.Code == 4:
		s.errors[j]["code 4: not processed within the timeout"]++
		s.nonce++ // pooled all the same
	default:
		s.errors[j][rpcclient.NormalizeReject(err.Error())]++
		s.readNonce()
	}
}

// sync is one eth_sendRawTransactionSync.
func (s *txsyncSender) sync(c *rpcclient.Client, raw []byte, timeout time.Duration) (time.Duration, error) {
	var receipt json.RawMessage
	t0 := time.Now()
	err := c.Call(&receipt, "eth_sendRawTransactionSync", hexutil.Bytes(raw), hexutil.Uint64(timeout.Milliseconds()))
	took := time.Since(t0)
	if err == nil && string(receipt) == "null" {
		err = errors.New("null receipt")
	}
	return took, err
}

// poll is eth_sendRawTransaction, then eth_getTransactionReceipt at once
// and every interval until it answers a receipt; the send's own time goes
// to sends.
func (s *txsyncSender) poll(c *rpcclient.Client, raw []byte, hash common.Hash, cfg Config, sends *[]time.Duration) (time.Duration, error) {
	t0 := time.Now()
	if err := c.Call(nil, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
		return 0, err
	}
	next := time.Now()
	*sends = append(*sends, next.Sub(t0))
	for {
		var receipt json.RawMessage
		if err := c.Call(&receipt, "eth_getTransactionReceipt", hash); err != nil {
			return 0, err
		}
		if string(receipt) != "null" {
			return time.Since(t0), nil
		}
		if time.Since(t0) > cfg.Timeout {
			return 0, &rpcclient.Error{Code: 4, Message: "no receipt within the timeout"}
		}
		next = next.Add(cfg.Poll)
		time.Sleep(time.Until(next))
	}
}
