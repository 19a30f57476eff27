package main

import (
	"flag"
	"strings"

	"github.com/stocknode/stocknode/node"
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
}
