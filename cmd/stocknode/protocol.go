package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/rest"
)

// protocolFlagValues are the tokenized-stock flags that need loading.
type protocolFlagValues struct {
	registry string
}

func protocolFlags(fs *flag.FlagSet, cfg *app.Config) *protocolFlagValues {
	var v protocolFlagValues
	fs.StringVar(&cfg.Network, "network.name", app.DefaultNetwork, "the node's own chain's name in GET /v1/tokenized-stocks/chains")
	fs.StringVar(&v.registry, "registry", "", "JSON file listing more chains for GET /v1/tokenized-stocks/chains: an array of objects with chain_id (decimal string), chain, policy_registry_address, token_supply_manager_address, token_factory_address")
	fs.BoolVar(&cfg.PreviewExamples, "preview.examples", true, "issue the example stock tokens in the first block of a new preview chain")
	return &v
}

// apply reads --registry; a bad file stops the node with what is wrong where.
func (v *protocolFlagValues) apply(cfg *app.Config) error {
	if v.registry == "" {
		return nil
	}
	chains, err := rest.LoadRegistry(v.registry)
	if err != nil {
		return fmt.Errorf("--registry: %w", err)
	}
	cfg.Registry = chains
	return nil
}

// printProtocol shows where the tokenized-stock protocol lives.
func printProtocol(w io.Writer, n *app.Node) {
	fmt.Fprintf(w, "Tokenized-stock protocol (Base's B20 interfaces):\n")
	fmt.Fprintf(w, "  B20 factory         %s\n", contracts.FactoryAddress.Hex())
	fmt.Fprintf(w, "  PolicyRegistry      %s\n", contracts.PolicyRegistryAddress.Hex())
	fmt.Fprintf(w, "  ActivationRegistry  %s\n", contracts.ActivationRegistryAddress.Hex())
	fmt.Fprintf(w, "  TokenSupplyManager  %s\n", contracts.TokenSupplyManagerAddress.Hex())
	if n.ExamplesIssued() {
		key := chain.ExampleIssuerKey()
		fmt.Fprintf(w, "Example tokens' issuer: %s  key %s (development key, public)\n", crypto.PubkeyToAddress(key.PublicKey).Hex(), hexutil.Encode(crypto.FromECDSA(key)))
	}
	fmt.Fprintf(w, "REST: GET /v1/tokenized-stocks, /v1/tokenized-stocks/chains, /v1/openapi.json\n\n")
}
