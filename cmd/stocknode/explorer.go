package main

import (
	"flag"
	"strconv"

	"github.com/stocknode/stocknode/node"
)

// explorerFlags registers the block explorer's flags.
func explorerFlags(fs *flag.FlagSet, cfg *node.Config) {
	fs.BoolFunc("explorer", "serve the block explorer (/, /block/, /tx/, /address/, /tokens, /token/, /search, /faucet) and keep its address index in <datadir>/index; --explorer=false turns both off (default true)", func(s string) error {
		on, err := strconv.ParseBool(s)
		cfg.ExplorerDisabled = !on
		return err
	})
}
