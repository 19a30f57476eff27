package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/lease"
)

// runHandover asks the leading sequencer candidate to hand over (a planned
// failover, op-conductor's transferLeader) and waits until another leads.
func runHandover(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stocknode handover", stderr)
	chainID := fs.Uint64("chainid", chain.PreviewChainID, "the chain whose leader hands over")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the leader's answer and for another candidate to lead")
	var cfg app.Config
	natsClientFlags(fs, &cfg) // --nats.url and the candidates' credentials
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || len(cfg.SequencerLog.URLs) == 0 {
		fmt.Fprintln(stderr, "usage: stocknode handover --nats.url URLS [--nats.nkey FILE | --nats.creds FILE] [--chainid ID]")
		return errUsage
	}
	opts, _, err := cfg.NATS.Options()
	if err != nil {
		return err
	}
	nc, err := nats.Connect(strings.Join(cfg.SequencerLog.URLs, ","), append(opts, nats.Name("stocknode handover"))...)
	if err != nil {
		return fmt.Errorf("connect to NATS: %w", err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	from, err := lease.RequestHandover(ctx, nc, *chainID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s handed over\n", from)
	next, err := awaitNewHolder(ctx, nc, *chainID, from)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s leads\n", next)
	return nil
}

// awaitNewHolder waits until a candidate other than from holds the lease.
func awaitNewHolder(ctx context.Context, nc *nats.Conn, chainID uint64, from string) (string, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return "", err
	}
	for {
		holder, err := lease.CurrentHolder(ctx, js, chainID)
		if err != nil {
			return "", err
		}
		if holder != "" && holder != from {
			return holder, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no other candidate leads yet: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
