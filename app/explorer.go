package app

import (
	"fmt"

	"path/filepath"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/explorer/etherscan"
	"github.com/stocknode/stocknode/explorer/index"
	"github.com/stocknode/stocknode/explorer/web"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/stocks"
)

// startExplorer opens the address index (its own pebble database under
// <datadir>/index, in memory with --dev) and serves the explorer's pages;
// both hear of sealed blocks through listeners. The index catches up with
// the chain in Run, which also indexes a chain brought in by import.
func (n *Node) startExplorer(listeners *sequencer.Listeners) error {
	if n.cfg.ExplorerDisabled {
		return nil
	}
	cfg := index.Config{InMemory: n.cfg.Dev}
	if !n.cfg.Dev {
		cfg.Dir = filepath.Join(n.cfg.DataDir, "index")
	}
	ix, err := index.Open(cfg, n.chain, n.logger)
	if err != nil {
		return fmt.Errorf("address index: %w", err)
	}
	webCfg := web.DefaultConfig()
	webCfg.Network = n.network()
	webCfg.ChainID = n.chain.Config().ChainID.Uint64()
	webCfg.Renders, webCfg.RenderWait = n.cfg.ExplorerRenders, n.cfg.ExplorerRenderWait
	if n.cfg.WSDisabled {
		webCfg.WSPath = ""
	}
	ex, err := web.New(webCfg, web.Deps{
		Store:   n.store,
		Chain:   n.chain,
		Pool:    n.pool,
		Tokens:  n.stocks,
		History: web.IndexHistory(ix),
		Faucet:  n.faucetInfo,
	}, n.logger)
	if err != nil {
		ix.Close()
		return fmt.Errorf("explorer: %w", err)
	}
	apiCfg := n.cfg.ExplorerAPI
	apiCfg.Peer = n.http.Peer
	api, err := etherscan.New(apiCfg, ix, n.store, n.chain, stockTokens{n.stocks}, n.logger)
	if err != nil {
		ix.Close()
		return err // names its flag
	}
	ex.Register(n.http)
	n.http.Handle(etherscan.Path, api.Handler)
	*listeners = append(*listeners, ix, ex)
	n.index, n.etherscan = ix, api
	return nil
}

// faucetInfo is the faucet's state for the faucet page.
func (n *Node) faucetInfo() (web.FaucetInfo, error) {
	info, err := n.faucet.Info()
	return web.FaucetInfo{
		Enabled:       info.Enabled,
		Address:       info.Address,
		Balance:       info.Balance,
		Amount:        info.Amount,
		Cooldown:      info.Cooldown,
		DripsLastHour: info.DripsLastHour,

		CaptchaProvider: info.CaptchaProvider,
		CaptchaSiteKey:  info.CaptchaSiteKey,
	}, err
}

// stockTokens names the B20 stock tokens for the Etherscan API's tokentx.
type stockTokens struct{ index *stocks.Index }

func (t stockTokens) Token(addr common.Address) (name, symbol string, decimals uint8, ok bool) {
	view := t.index.View()
	if view == nil {
		return "", "", 0, false
	}
	tok := view.Token(addr)
	if tok == nil {
		return "", "", 0, false
	}
	return tok.Name, tok.Symbol, tok.Decimals, true
}
