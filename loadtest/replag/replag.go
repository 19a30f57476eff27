// Package replag is loadtest's replag mode: how long after the sequencer a
// read replica announces each pre-confirmation.
package replag

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/internal/latency"
)

// Config measures a read replica's lag: how long after the
// sequencer's newFlashblocks notification of a pre-confirmation the
// replica's own arrives. Both subscribers run in this process on one
// clock; each pre-confirmation is named by its block number and index.
type Config struct {
	Sequencer string
	Replica   string
	Duration  time.Duration
}

// Flags registers the replag mode's flags on fs and returns the Config they
// fill.
func Flags(fs *flag.FlagSet) *Config {
	c := new(Config)
	fs.StringVar(&c.Sequencer, "sequencer", "ws://127.0.0.1:8545/ws", "the sequencer's WebSocket endpoint")
	fs.StringVar(&c.Replica, "replica", "ws://127.0.0.1:8546/ws", "the replica's WebSocket endpoint")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "how long to listen")
	return c
}

// Report is how far the replica's heads and pre-confirmations trailed the
// sequencer's.
type Report struct {
	Sequencer string            `json:"sequencer"`
	Replica   string            `json:"replica"`
	Seconds   float64           `json:"seconds"`
	Preconfs  int               `json:"preconfirmations"`
	Matched   int               `json:"matched"`
	Missing   int               `json:"missingOnReplica"`
	Lag       latency.Durations `json:"lag"`
}

func (r Report) String() string {
	return fmt.Sprintf("replica lag over %.0fs: %d pre-confirmations on the sequencer, %d on the replica too (%d missing); lag p50 %v p90 %v p99 %v max %v",
		r.Seconds, r.Preconfs, r.Matched, r.Missing, r.Lag.P50, r.Lag.P90, r.Lag.P99, r.Lag.Max)
}

type flashKey struct{ number, index uint64 }

// flashArrivals subscribes to newFlashblocks at url and records when each
// pre-confirmation arrived, until ctx ends.
func flashArrivals(ctx context.Context, url string) (map[flashKey]time.Time, error) {
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	defer conn.Close()
	if err := conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": []string{"newFlashblocks"}}); err != nil {
		return nil, err
	}
	go func() { <-ctx.Done(); conn.Close() }()
	seen := make(map[flashKey]time.Time)
	for {
		_, data, err := conn.ReadMessage()
		at := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return seen, nil
			}
			return nil, fmt.Errorf("read %s: %w", url, err)
		}
		var msg struct {
			Params struct {
				Result struct {
					Number hexutil.Uint64 `json:"number"`
					Index  hexutil.Uint64 `json:"index"`
				} `json:"result"`
			} `json:"params"`
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		r := msg.Params.Result
		if r.Number == 0 {
			continue // the subscription's answer
		}
		key := flashKey{uint64(r.Number), uint64(r.Index)}
		if _, ok := seen[key]; !ok {
			seen[key] = at
		}
	}
}

// Run listens to both nodes' newHeads for c.Duration and reports the
// replica's lag behind the sequencer.
func Run(ctx context.Context, c Config) (Report, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	var (
		wg       sync.WaitGroup
		seq, rep map[flashKey]time.Time
		seqErr   error
		repErr   error
	)
	wg.Add(2)
	go func() { defer wg.Done(); seq, seqErr = flashArrivals(ctx, c.Sequencer) }()
	go func() { defer wg.Done(); rep, repErr = flashArrivals(ctx, c.Replica) }()
	wg.Wait()
	if seqErr != nil || repErr != nil {
		return Report{}, fmt.Errorf("sequencer: %v; replica: %v", seqErr, repErr)
	}
	r := Report{Sequencer: c.Sequencer, Replica: c.Replica, Seconds: c.Duration.Seconds(), Preconfs: len(seq)}
	h := latency.New()
	for key, at := range seq {
		got, ok := rep[key]
		switch {
		case ok:
			r.Matched++
			h.Record(max(0, got.Sub(at)))
		case at.After(time.Now().Add(-time.Second)):
			// Still on its way when listening stopped: neither lag nor missing.
		default:
			r.Missing++
		}
	}
	r.Lag = h.Summary()
	return r, nil
}
