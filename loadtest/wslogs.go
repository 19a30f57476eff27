package main

import (
	"context"
	"flag"
	"fmt"
	"time"
)

type logsConfig struct {
	URL, RPC string
	N        int
	Duration time.Duration
	Rate     int
}

func logsFlags(fs *flag.FlagSet) *logsConfig {
	c := new(logsConfig)
	fs.StringVar(&c.URL, "url", "ws://127.0.0.1:8545/ws", "WebSocket endpoint")
	fs.StringVar(&c.RPC, "rpc", "http://127.0.0.1:8545", "HTTP endpoint for the transaction flood")
	fs.IntVar(&c.N, "n", 1000, "logs subscribers")
	fs.DurationVar(&c.Duration, "duration", 20*time.Second, "flood duration")
	fs.IntVar(&c.Rate, "rate", 200, "transactions per second")
	return c
}

func runLogs(ctx context.Context, cfg logsConfig) (any, error) {
	return nil, fmt.Errorf("ws-logs: not implemented yet")
}
