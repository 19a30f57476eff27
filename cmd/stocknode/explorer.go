package main

import (
	"flag"
	"strconv"

	"github.com/stocknode/stocknode/explorer/web"
	"github.com/stocknode/stocknode/node"
)

// explorerFlags registers the block explorer's flags.
func explorerFlags(fs *flag.FlagSet, cfg *node.Config) {
	fs.BoolFunc("explorer", "serve the block explorer (/, /block/, /tx/, /address/, /tokens, /token/, /search, /faucet) and keep its address index in <datadir>/index; --explorer=false turns both off (default true)", func(s string) error {
		on, err := strconv.ParseBool(s)
		cfg.ExplorerDisabled = !on
		return err
	})
	fs.IntVar(&cfg.ExplorerRenders, "explorer.renders", 0, "explorer pages rendered at once, so that a flood of page requests leaves the other cores to JSON-RPC (default half the cores, at least 1)")
	fs.DurationVar(&cfg.ExplorerRenderWait, "explorer.render-wait", web.DefaultRenderWait, "how long a page waits for its turn before it is answered 503 with Retry-After")
}
