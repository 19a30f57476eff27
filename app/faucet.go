package app

import (
	"path/filepath"

	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/node/sequencer"
)

// startFaucet mounts the faucet API (and chain-health) under
// /api/{network}/; it hears of sealed blocks through listeners.
func (n *Node) startFaucet(listeners *sequencer.Listeners) error {
	cfg := n.cfg.Faucet
	cfg.Network = n.network()
	cfg.Dir = ""
	if !n.cfg.Dev {
		cfg.Dir = filepath.Join(n.cfg.DataDir, "faucet")
	}
	b := faucet.Backend{
		Pool:       n.pool,
		RPC:        n.rpc,
		Snapshots:  n.store,
		ChainID:    n.chain.Config().ChainID,
		Key:        n.faucetKey,
		StaleAfter: n.staleAfter(),
	}
	if n.relay != nil { // a replica: the sequencer's faucet drips
		b.Remote = n.relay.Drip
	}
	f, err := faucet.New(cfg, b, n.logger)
	if err != nil {
		return err // names its flag or the database
	}
	f.Mount(n.observedMux("faucet"))
	*listeners = append(*listeners, f)
	n.faucet = f
	return nil
}

// logFaucet says where the faucet and chain-health answer.
func (n *Node) logFaucet(base string) {
	cfg := n.cfg.Faucet
	if !cfg.Enabled {
		n.logger.Info("Faucet off (--faucet=false)", "chainHealth", n.faucet.HealthURL(base))
		return
	}
	captcha := cfg.Captcha.Provider
	if captcha == "" {
		captcha = "none"
	}
	n.logger.Info("Faucet listening", "url", n.faucet.URL(base), "address", n.faucet.Address().Hex(), "amount", faucet.FormatEther(cfg.Amount),
		"cooldown", cfg.Cooldown, "captcha", captcha, "chainHealth", n.faucet.HealthURL(base))
}
