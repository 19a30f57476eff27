package chain

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/chainconfig"
	"github.com/stocknode/stocknode/contracts"
)

const (
	// PreviewChainID is the preview network's chain ID (spec: preview network constants).
	PreviewChainID = 84538453

	// PreviewGasLimit is the preview network's block gas limit. A 200 ms block
	// of 30M gas asks for 150 Mgas/s of execution at full blocks (plus the same
	// again for validation on insert), about what one core of the project's
	// machine kind sustains, so a full block still seals on time.
	PreviewGasLimit = 30_000_000

	// previewGenesisTime is fixed so that the preview genesis hash is the same on
	// every machine (2026-01-01T00:00:00Z).
	previewGenesisTime = 1767225600
)

var (
	// DevAccountBalance is what each development account holds at genesis.
	DevAccountBalance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether))

	// ExampleIssuerBalance is what the example tokens' issuer holds at genesis.
	ExampleIssuerBalance = new(big.Int).Mul(big.NewInt(1_000), big.NewInt(params.Ether))

	// FaucetBalance is what the faucet account holds at genesis.
	FaucetBalance = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether))

	// PreviewMinBaseFee is the preview network's base fee floor. 200 ms blocks
	// are mostly far below the gas target, so under plain EIP-1559 the base fee
	// would decay towards a few wei within seconds and fee markets would mean
	// nothing; the floor equals the initial base fee of 1 gwei.
	PreviewMinBaseFee = big.NewInt(params.InitialBaseFee)
)

// PreviewConfig is the preview network's fork configuration: every fork
// through Prague active at genesis, Osaka and later off, proof of stake from
// genesis.
func PreviewConfig() *params.ChainConfig {
	return chainconfig.Prague(big.NewInt(PreviewChainID))
}

// PreviewGenesis is the built-in genesis of the preview network: the ten
// development accounts with 10,000 ETH each, the faucet, the tokenized-stock
// protocol (package contracts), the examples' issuer, the precompiles and
// the system contracts that Cancun and Prague call into (as geth's
// core.DeveloperGenesisBlock lays them out).
func PreviewGenesis(faucet common.Address) (*core.Genesis, error) {
	keys, err := DevKeys(DevAccountCount)
	if err != nil {
		return nil, err
	}
	dev := core.DeveloperGenesisBlock(PreviewGasLimit, nil)
	alloc := types.GenesisAlloc{}
	// Precompiles hold one wei so that they are never "empty" accounts.
	for addr, account := range dev.Alloc {
		if len(account.Code) == 0 {
			alloc[addr] = account
		}
	}
	maps.Copy(alloc, systemContracts())
	for _, key := range keys {
		alloc[crypto.PubkeyToAddress(key.PublicKey)] = types.Account{Balance: new(big.Int).Set(DevAccountBalance)}
	}
	alloc[faucet] = types.Account{Balance: new(big.Int).Set(FaucetBalance)}
	// The tokenized-stock protocol at Base's addresses, and the issuer of
	// the example tokens (funded whether or not they are issued, so the
	// genesis does not depend on --preview.examples).
	maps.Copy(alloc, contracts.Predeploys())
	alloc[crypto.PubkeyToAddress(ExampleIssuerKey().PublicKey)] = types.Account{Balance: new(big.Int).Set(ExampleIssuerBalance)}

	return &core.Genesis{
		Config:     PreviewConfig(),
		Timestamp:  previewGenesisTime,
		ExtraData:  []byte("stocknode preview"),
		GasLimit:   PreviewGasLimit,
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Difficulty: big.NewInt(0),
		Alloc:      alloc,
	}, nil
}

// systemContracts are the contracts Cancun (EIP-4788) and Prague (EIP-2935,
// EIP-7002, EIP-7251) call into at every block.
func systemContracts() types.GenesisAlloc {
	all := core.SystemContractAllocs()
	out := types.GenesisAlloc{}
	for _, addr := range []common.Address{
		params.BeaconRootsAddress,
		params.HistoryStorageAddress,
		params.WithdrawalQueueAddress,
		params.ConsolidationQueueAddress,
	} {
		out[addr] = all[addr]
	}
	return out
}

// FaucetKey returns the faucet's key: the given hex key, or, when it is empty,
// a development key derived from a fixed seed (so it is the same on every
// machine and must never hold real value).
func FaucetKey(hexKey string) (key *ecdsa.PrivateKey, derived bool, err error) {
	if hexKey != "" {
		key, err = crypto.HexToECDSA(trimHexPrefix(hexKey))
		if err != nil {
			return nil, false, fmt.Errorf("faucet key: %w", err)
		}
		return key, false, nil
	}
	key, err = crypto.ToECDSA(crypto.Keccak256([]byte("stocknode preview faucet")))
	return key, true, err
}

// ExampleIssuerKey is the key that issues the preview network's example
// stock tokens. It is derived from a fixed seed, so it is public: it holds
// nothing of value, and anyone may act as the examples' issuer.
func ExampleIssuerKey() *ecdsa.PrivateKey {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("stocknode preview example issuer")))
	if err != nil {
		panic("chain: example issuer key: " + err.Error()) // a constant seed
	}
	return key
}

func trimHexPrefix(s string) string {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}

// LoadGenesis reads a geth-format genesis.json (alloc with code and storage).
func LoadGenesis(path string) (*core.Genesis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read genesis: %w", err)
	}
	genesis := new(core.Genesis)
	if err := json.Unmarshal(data, genesis); err != nil {
		return nil, fmt.Errorf("parse genesis %s: %w", path, err)
	}
	if genesis.Config == nil {
		return nil, fmt.Errorf("genesis %s: missing config", path)
	}
	return genesis, nil
}
