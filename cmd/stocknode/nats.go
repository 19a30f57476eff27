package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/stocknode/stocknode/node"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

// natsFlags registers the sequencer log's flags (node/seqlog).
func natsFlags(fs *flag.FlagSet, cfg *node.Config) {
	cfg.Log = seqlog.Config{Replicas: 1}
	fs.StringVar(&cfg.Log.Listen, "nats.listen", "", "expose the embedded NATS JetStream server holding the sequencer's log on this address (host:port) for replicas; default: no listener")
	fs.Func("nats.url", "use the external NATS cluster at these URLs (comma-separated) for the sequencer's log instead of the embedded server", func(s string) error {
		for _, u := range strings.Split(s, ",") {
			if u = strings.TrimSpace(u); u != "" {
				cfg.Log.URLs = append(cfg.Log.URLs, u)
			}
		}
		return nil
	})
	fs.IntVar(&cfg.Log.Replicas, "nats.replicas", 1, "replicas of the log's stream when it is created: 1, 3 or 5 (more than 1 needs --nats.url and a cluster that large)")
	fs.BoolVar(&cfg.Follow, "follow", false, "run as a read replica of the sequencer whose log --nats.url reaches: replay its blocks and pre-confirmations, relay transactions and faucet drips to it")
	fs.DurationVar(&cfg.RelayTimeout, "follow.relay-timeout", relay.DefaultTimeout, "with --follow: how long a relayed transaction or drip waits for the sequencer's answer")
}

// checkFollow rejects flags a read replica cannot honour.
func checkFollow(cfg *node.Config) error {
	switch {
	case !cfg.Follow:
		return nil
	case len(cfg.Log.URLs) == 0:
		return errors.New("--follow needs --nats.url: the NATS server or cluster holding the sequencer's log (the sequencer's --nats.listen address, or the cluster's URLs)")
	case cfg.Log.Listen != "":
		return errors.New("--follow and --nats.listen do not go together: a replica reads the sequencer's log where --nats.url says and serves none")
	case cfg.RelayTimeout <= 0:
		return fmt.Errorf("--follow.relay-timeout %v must be positive: it bounds the wait for the sequencer's answer over --nats.url", cfg.RelayTimeout)
	}
	return nil
}
