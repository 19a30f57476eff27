package app

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/internal/httpapi"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
	"github.com/stocknode/stocknode/node/stocks"
	"github.com/stocknode/stocknode/rest"
)

// DefaultNetwork is the node's own chain's name in the REST API.
const DefaultNetwork = "preview"

// network is the node's own chain's name (--network.name).
func (n *Node) network() string {
	if n.cfg.Network == "" {
		return DefaultNetwork
	}
	return n.cfg.Network
}

// startREST builds the token index and the REST API over it, and mounts
// the API under /v1/; the index hears of sealed blocks through listeners.
func (n *Node) startREST(listeners *sequencer.Listeners) error {
	n.stocks = stocks.New(n.chain, n.store, contracts.FactoryAddress, n.logger)
	*listeners = append(*listeners, n.stocks)
	own := rest.Chain{
		ChainID:            n.chain.Config().ChainID.Uint64(),
		Name:               n.network(),
		PolicyRegistry:     contracts.PolicyRegistryAddress,
		TokenSupplyManager: contracts.TokenSupplyManagerAddress,
		TokenFactory:       contracts.FactoryAddress,
	}
	api, err := rest.New(append([]rest.Chain{own}, n.cfg.Registry...), n.stocks)
	if err != nil {
		return fmt.Errorf("--registry: %w", err)
	}
	n.observedMux("rest").Mount(rest.Prefix, api.Handler)
	n.http.NotFound(httpapi.NotFound)
	n.warnIfNoProtocol()
	return nil
}

// warnIfNoProtocol says so when the chain (a --genesis of the operator's)
// lacks the protocol's contracts that the REST API names.
func (n *Node) warnIfNoProtocol() {
	st, err := n.chain.BlockChain().State()
	if err != nil {
		return
	}
	for _, addr := range []struct {
		name string
		at   common.Address
	}{{"PolicyRegistry", contracts.PolicyRegistryAddress}, {"TokenSupplyManager", contracts.TokenSupplyManagerAddress}, {"B20 factory", contracts.FactoryAddress}} {
		if len(st.GetCode(addr.at)) == 0 {
			n.logger.Warn("The tokenized-stock protocol is not on this chain: the REST API lists its addresses, but they hold no code (the built-in preview genesis has it)", "missing", addr.name)
			return
		}
	}
}

// issueExamples puts the example tokens' transactions in the pool when a
// new chain whose genesis holds the protocol and the examples' funded issuer
// (the built-in preview genesis) starts, so the first block issues them
// (--preview.examples). A failure is logged: the examples are a courtesy,
// not a reason to stop.
func (n *Node) issueExamples() error {
	if !n.cfg.PreviewExamples || n.chain.Head().Number.Sign() != 0 {
		return nil
	}
	st, err := n.chain.BlockChain().State()
	if err != nil {
		return err
	}
	issuer := chain.ExampleIssuerKey()
	from := crypto.PubkeyToAddress(issuer.PublicKey)
	if len(st.GetCode(contracts.FactoryAddress)) == 0 || st.GetBalance(from).IsZero() || st.GetNonce(from) != 0 {
		return nil // not the preview genesis
	}
	devs, err := chain.DevKeys(2)
	if err != nil {
		return err
	}
	holders := make([]common.Address, len(devs))
	for i, k := range devs {
		holders[i] = crypto.PubkeyToAddress(k.PublicKey)
	}
	txs, err := preview.Transactions(n.chain.Config().ChainID, issuer, holders)
	if err == nil {
		for _, tx := range txs {
			if err = n.pool.Add(tx); err != nil {
				err = fmt.Errorf("transaction %d: %w", tx.Nonce(), err)
				break
			}
		}
	}
	if err != nil {
		n.logger.Warn("The example stock tokens could not be issued", "err", err)
		return nil
	}
	n.examplesIssued = true
	n.logger.Info("Issuing the example stock tokens in the first block (--preview.examples=false leaves them out)", "tokens", len(preview.Examples()), "transactions", len(txs))
	return nil
}

// ExamplesIssued reports whether this start issued the example tokens.
func (n *Node) ExamplesIssued() bool { return n.examplesIssued }
