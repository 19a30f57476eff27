package main

import (
	"flag"
	"strconv"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/explorer/etherscan"
	"github.com/stocknode/stocknode/explorer/web"
)

// explorerFlags registers the block explorer's flags.
func explorerFlags(fs *flag.FlagSet, cfg *app.Config) {
	fs.BoolFunc("explorer", "serve the block explorer (/, /block/, /tx/, /address/, /tokens, /token/, /search, /faucet) and keep its address index in <datadir>/index; --explorer=false turns both off (default true)", func(s string) error {
		on, err := strconv.ParseBool(s)
		cfg.ExplorerDisabled = !on
		return err
	})
	fs.IntVar(&cfg.ExplorerRenders, "explorer.renders", 0, "explorer pages rendered at once, so that a flood of page requests leaves the other cores to JSON-RPC (default half the cores, at least 1)")
	fs.DurationVar(&cfg.ExplorerRenderWait, "explorer.render-wait", web.DefaultRenderWait, "how long a page waits for its turn before it is answered 503 with Retry-After")
	cfg.ExplorerAPI = etherscan.DefaultConfig()
	fs.IntVar(&cfg.ExplorerAPI.Workers, "explorer.api.workers", 0, "Etherscan API history requests (txlist, tokentx) answered at once (default: one per CPU; clients whose requests run long share one fewer, as eth_calls)")
	fs.IntVar(&cfg.ExplorerAPI.Queue, "explorer.api.queue", cfg.ExplorerAPI.Queue, "Etherscan API history requests that may wait for a turn")
	fs.DurationVar(&cfg.ExplorerAPI.Wait, "explorer.api.wait", cfg.ExplorerAPI.Wait, "how long an Etherscan API history request waits for its turn before it is answered to retry (status 0, \"Max rate limit reached\")")
	fs.IntVar(&cfg.ExplorerAPI.MaxRows, "explorer.api.max-rows", cfg.ExplorerAPI.MaxRows, "most entries one Etherscan API answer holds (offset); a request without an offset gets 1,000, or this if fewer")
}
