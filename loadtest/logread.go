package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/seqlog"
)

// logreadConfig follows the sequencer's log with N readers that only read
// (no replay): what each replica costs the NATS server that feeds it,
// without the replicas' own CPU on the same machine.
type logreadConfig struct {
	URLs     string
	NKey     string
	Readers  int
	Duration time.Duration
}

func logreadFlags(fs *flag.FlagSet) *logreadConfig {
	c := new(logreadConfig)
	fs.StringVar(&c.URLs, "nats", "nats://127.0.0.1:4222", "the sequencer's log: its --nats.listen URL or the cluster's URLs (comma-separated)")
	fs.StringVar(&c.NKey, "nkey", "", "the nkey seed file a replica authenticates with (the sequencer's <datadir>/nats-auth/replica.nk); empty: none (a cluster that admits anyone)")
	fs.IntVar(&c.Readers, "readers", 4, "readers following the log, each on its own connection")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "how long to read")
	return c
}

type logreadReport struct {
	Readers        int     `json:"readers"`
	Seconds        float64 `json:"seconds"`
	Entries        uint64  `json:"entries"`
	EntriesPerSec  float64 `json:"entriesPerSecondPerReader"`
	BytesPerSecond float64 `json:"rlpBytesPerSecondPerReader"`
}

func (r logreadReport) String() string {
	return fmt.Sprintf("%d readers over %.0fs: %d entries, %.0f entries/s and %.0f KB/s of entries per reader",
		r.Readers, r.Seconds, r.Entries, r.EntriesPerSec, r.BytesPerSecond/1000)
}

func runLogread(ctx context.Context, c logreadConfig) (logreadReport, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	connect, _, err := natsauth.Client{NKeyFile: c.NKey}.Options()
	if err != nil {
		return logreadReport{}, err
	}
	cfg := seqlog.Config{ChainID: chain.PreviewChainID, URLs: strings.Split(c.URLs, ","), Reader: true, Connect: connect}
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	var (
		entries, size atomic.Uint64
		wg            sync.WaitGroup
		errs          = make(chan error, c.Readers)
	)
	for range c.Readers {
		l, err := seqlog.Open(ctx, cfg, quiet)
		if err != nil {
			return logreadReport{}, err
		}
		defer l.Close()
		last, err := l.Info(ctx)
		if err != nil {
			return logreadReport{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rec, err := range l.Follow(ctx, last.LastSeq+1) {
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				entries.Add(1)
				size.Add(uint64(entrySize(rec.Entry)))
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return logreadReport{}, err
	default:
	}
	per := float64(c.Readers) * c.Duration.Seconds()
	return logreadReport{Readers: c.Readers, Seconds: c.Duration.Seconds(), Entries: entries.Load(),
		EntriesPerSec: float64(entries.Load()) / per, BytesPerSecond: float64(size.Load()) / per}, nil
}

// entrySize approximates an entry's payload: its transactions' or block's
// bytes (the rest is a few dozen bytes).
func entrySize(e seqlog.Entry) int {
	switch e := e.(type) {
	case seqlog.Preconfirmed:
		n := 0
		for _, tx := range e.Transactions {
			n += len(tx)
		}
		return n
	case seqlog.Sealed:
		return len(e.Block)
	case seqlog.Accepted:
		n := 0
		for _, tx := range e.Transactions {
			n += len(tx)
		}
		return n
	}
	return 0
}
