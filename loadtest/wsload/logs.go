package wsload

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"
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
	"github.com/stocknode/stocknode/loadtest/wsprobe"
)

// LogsConfig is a logs subscription load: the endpoints, the subscribers
// and how long they listen (LogsFlags gives the defaults).
type LogsConfig struct {
	URL, RPC string
	N        int
	Duration time.Duration
	Rate     int
	Kind     string
	Readers  int
	Poll     time.Duration
}

// LogsFlags registers the ws-logs mode's flags on fs and returns the
// LogsConfig they fill.
func LogsFlags(fs *flag.FlagSet) *LogsConfig {
	c := new(LogsConfig)
	fs.StringVar(&c.URL, "url", "ws://127.0.0.1:8545/ws", "WebSocket endpoint")
	fs.StringVar(&c.RPC, "rpc", "http://127.0.0.1:8545", "HTTP endpoint for the transaction flood")
	fs.IntVar(&c.N, "n", 1000, "logs subscribers")
	fs.DurationVar(&c.Duration, "duration", 20*time.Second, "flood duration")
	fs.IntVar(&c.Rate, "rate", 200, "transactions per second")
	fs.StringVar(&c.Kind, "kind", "logs", "subscription kind: logs (sealed) or pendingLogs (pre-confirmed)")
	fs.IntVar(&c.Readers, "readers", 1, "probe threads reading the subscribers (each an epoll loop)")
	fs.DurationVar(&c.Poll, "poll", 0, "with a duration, the probe threads never sleep in epoll_wait: they poll, and sleep this long when nothing is ready, so that a server's send finds no thread to wake (on loopback the sender pays the receiver's wake-up; a subscriber on another machine wakes on its own CPU)")
	return c
}

// LogsReport is how the subscribers received the logs the generator emitted.
type LogsReport struct {
	Kind         string            `json:"kind"`
	Subscribers  int               `json:"subscribers"`
	Sent         int               `json:"sent"`
	Rejected     int               `json:"rejected"`
	Logs         int               `json:"logsSeen"`
	Undelivered  int               `json:"logsNotDeliveredToAll"`
	Dropped      int               `json:"subscribersDropped"`
	DialFailures int               `json:"dialFailures"`
	DialError    string            `json:"firstDialError,omitempty"`
	Spread       latency.Durations `json:"spread"`
	SendToFirst  latency.Durations `json:"sendToFirstDelivery"`
}

func (r LogsReport) String() string {
	s := fmt.Sprintf("ws-logs (%s): %d subscribers, %d transactions sent (%d rejected), %d logs seen, %d not delivered to every subscriber, %d subscribers dropped\nspread: %v\nsend to first delivery: %v",
		r.Kind, r.Subscribers, r.Sent, r.Rejected, r.Logs, r.Undelivered, r.Dropped, r.Spread, r.SendToFirst)
	if r.DialFailures > 0 {
		s += fmt.Sprintf("\n%d dial failures, the first: %s", r.DialFailures, r.DialError)
	}
	return s
}

// logEmitter's runtime emits LOG1(topic) with its calldata as data.
func logEmitter() []byte {
	runtime := hexutil.MustDecode("0x366000600037" + "7f" + strings.Repeat("ab", 32) + "366000a100")
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

type sender struct {
	key   *ecdsa.PrivateKey
	nonce uint64
}

// RunLogs subscribes cfg's clients to logs, emits transactions that log,
// and reports each log's delivery.
func RunLogs(ctx context.Context, cfg LogsConfig) (LogsReport, error) {
	report := LogsReport{Kind: cfg.Kind, Subscribers: cfg.N}
	for _, u := range []string{cfg.URL, cfg.RPC} {
		if err := target.CheckLoopback(u); err != nil {
			return report, err
		}
	}
	client, err := rpcclient.New(cfg.RPC, 4)
	if err != nil {
		return report, err
	}
	chainID, signer, err := client.ChainSigner()
	if err != nil {
		return report, err
	}
	// The first eight development accounts send the flood.
	senders := make([]*sender, workload.FloodFunders)
	for i := range senders {
		key := workload.DevKey(i)
		var nonce hexutil.Uint64
		if err := client.Call(&nonce, "eth_getTransactionCount", crypto.PubkeyToAddress(key.PublicKey), "pending"); err != nil {
			return report, err
		}
		senders[i] = &sender{key: key, nonce: uint64(nonce)}
	}
	send := func(s *sender, to *common.Address, data []byte, gas uint64) (common.Hash, error) {
		tx, _ := types.SignNewTx(s.key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: s.nonce,
			GasTipCap: big.NewInt(params.GWei), GasFeeCap: big.NewInt(100 * params.GWei), Gas: gas, To: to, Data: data, Value: new(big.Int)})
		raw, _ := tx.MarshalBinary()
		var hash common.Hash
		err := client.Call(&hash, "eth_sendRawTransaction", hexutil.Bytes(raw))
		if err == nil {
			s.nonce++
		}
		return hash, err
	}
	deploy, err := send(senders[0], nil, logEmitter(), 200_000)
	if err != nil {
		return report, fmt.Errorf("deploy: %w", err)
	}
	contract, err := waitContract(ctx, client, deploy)
	if err != nil {
		return report, err
	}

	subs, failures, dialErr := dialAll(ctx, FanoutConfig{URL: cfg.URL, N: cfg.N, Dialers: 64,
		params: `["` + cfg.Kind + `",{"address":"` + contract.Hex() + `"}]`})
	report.DialFailures = failures
	if dialErr != nil {
		report.DialError = dialErr.Error()
	}
	defer closeAll(subs)
	var recording atomic.Bool
	recording.Store(true)
	loops, err := wsprobe.NewLoops(cfg.Readers, cfg.Poll)
	if err != nil {
		return report, err
	}
	seqs := make([]map[uint64]time.Time, len(subs))
	for i, s := range subs {
		seqs[i] = map[uint64]time.Time{}
		if err := loops.Add(i, s.conn, logRecorder(&recording, seqs[i]), s.dropped(&recording)); err != nil {
			loops.Close()
			return report, err
		}
	}
	loops.Start()
	time.Sleep(time.Second)

	sent := map[uint64]time.Time{}
	interval := time.Second / time.Duration(max(1, cfg.Rate))
	ticker := time.NewTicker(interval)
	end := time.Now().Add(cfg.Duration)
	var seq uint64
	for time.Now().Before(end) && ctx.Err() == nil {
		<-ticker.C
		seq++
		data := binary.BigEndian.AppendUint64(nil, seq)
		s := senders[1+int(seq)%(len(senders)-1)]
		at := time.Now()
		if _, err := send(s, &contract, data, 60_000); err != nil {
			report.Rejected++
			continue
		}
		sent[seq] = at
		report.Sent++
	}
	ticker.Stop()
	time.Sleep(3 * time.Second) // let the last blocks seal and deliver
	recording.Store(false)
	loops.Close()
	report.Logs, report.Undelivered, report.Spread, report.SendToFirst = logSpreads(sent, seqs)
	for _, s := range subs {
		if s.closed.Load() {
			report.Dropped++
		}
	}
	return report, nil
}

func waitContract(ctx context.Context, client *rpcclient.Client, hash common.Hash) (common.Address, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var receipt struct {
			ContractAddress *common.Address `json:"contractAddress"`
		}
		if err := client.Call(&receipt, "eth_getTransactionReceipt", hash); err == nil && receipt.ContractAddress != nil {
			return *receipt.ContractAddress, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return common.Address{}, fmt.Errorf("contract deployment %s not mined", hash)
}

var dataKey = []byte(`"data":"0x`)

// logRecorder records, per sequence number carried in the log data, when
// it first arrived.
func logRecorder(recording *atomic.Bool, seen map[uint64]time.Time) func([]byte, time.Time) {
	return func(msg []byte, arrived time.Time) {
		i := bytes.Index(msg, dataKey)
		if !recording.Load() || i < 0 || len(msg) < i+len(dataKey)+16 {
			return
		}
		raw, err := hex.DecodeString(string(msg[i+len(dataKey) : i+len(dataKey)+16]))
		if err != nil {
			return
		}
		seq := binary.BigEndian.Uint64(raw)
		if _, dup := seen[seq]; !dup {
			seen[seq] = arrived
		}
	}
}

func logSpreads(sent map[uint64]time.Time, seen []map[uint64]time.Time) (logs, undelivered int, spread, sendToFirst latency.Durations) {
	var spreads, firsts []time.Duration
	for seq, at := range sent {
		var first, last time.Time
		count := 0
		for _, m := range seen {
			t, ok := m[seq]
			if !ok {
				continue
			}
			count++
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
		if count == 0 {
			undelivered++
			continue
		}
		logs++
		if count < len(seen) {
			undelivered++
		}
		spreads = append(spreads, last.Sub(first))
		firsts = append(firsts, first.Sub(at))
	}
	return logs, undelivered, latency.Summarize(spreads), latency.Summarize(firsts)
}
