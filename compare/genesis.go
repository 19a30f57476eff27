package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// tokenArtifact is LoadToken compiled by compare/token/compile.mjs.
//
//go:embed token/LoadToken.json
var tokenArtifact []byte

// chainID of the comparison chain (also geth's network id).
const chainID = 31337

func tokenRuntime() ([]byte, error) {
	var a struct {
		DeployedBytecode string `json:"deployedBytecode"`
	}
	if err := json.Unmarshal(tokenArtifact, &a); err != nil {
		return nil, err
	}
	code, err := hexutil.Decode(a.DeployedBytecode)
	if err != nil || len(code) == 0 {
		return nil, fmt.Errorf("token/LoadToken.json: bad deployedBytecode: %v", err)
	}
	return code, nil
}

type allocAccount struct {
	Balance string                      `json:"balance"`
	Nonce   string                      `json:"nonce,omitempty"`
	Code    string                      `json:"code,omitempty"`
	Storage map[common.Hash]common.Hash `json:"storage,omitempty"`
}

func hexBig(v *big.Int) string { return hexutil.EncodeBig(v) }

// genesisGasLimit is every block's gas limit, given to anvil as a flag too
// (it keeps its own, 30M, whatever the genesis says). At 30M a block every
// 200 ms holds 7,142 transfers a second, and the flood then measured the
// block's size instead of a server's intake: both servers' blocks are as
// large, and neither server's blocks are full at 60M.
const genesisGasLimit = 60_000_000

// genesisJSON is the one genesis every server runs: geth's format, all forks
// through Prague at genesis (proof of stake from the start, Osaka off),
// genesisGasLimit gas a block, base fee 1 gwei; the ten development accounts
// (10,000 ETH), the 1,024 read addresses (1 ETH and a LoadToken balance
// each), LoadToken at workload.Token, and the system contracts Cancun and
// Prague call.
func genesisJSON() ([]byte, error) {
	code, err := tokenRuntime()
	if err != nil {
		return nil, err
	}
	alloc := map[common.Address]allocAccount{}
	for i := range workload.DevKeys {
		alloc[workload.DevAddress(i)] = allocAccount{Balance: hexBig(workload.DevBalance)}
	}
	storage := map[common.Hash]common.Hash{
		common.BigToHash(big.NewInt(1)): common.BigToHash(workload.TokenSupply()), // totalSupply
	}
	for i := range workload.NumAddresses {
		a := workload.Address(i)
		alloc[a] = allocAccount{Balance: hexBig(workload.EthBalance)}
		storage[workload.BalanceSlot(a)] = common.BigToHash(workload.TokenBalance(i))
	}
	alloc[workload.Token] = allocAccount{Balance: "0x0", Nonce: "0x1", Code: hexutil.Encode(code), Storage: storage}
	for addr, code := range map[common.Address][]byte{
		params.BeaconRootsAddress:        params.BeaconRootsCode,
		params.HistoryStorageAddress:     params.HistoryStorageCode,
		params.WithdrawalQueueAddress:    params.WithdrawalQueueCode,
		params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
	} {
		alloc[addr] = allocAccount{Balance: "0x0", Nonce: "0x1", Code: hexutil.Encode(code)}
	}
	config := map[string]any{
		"chainId": chainID, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
		"byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
		"muirGlacierBlock": 0, "berlinBlock": 0, "londonBlock": 0, "arrowGlacierBlock": 0,
		"grayGlacierBlock": 0, "mergeNetsplitBlock": 0, "shanghaiTime": 0, "cancunTime": 0, "pragueTime": 0,
		"terminalTotalDifficulty": 0,
		"depositContractAddress":  "0x00000000219ab540356cbb839cbe05303d7705fa",
		"blobSchedule": map[string]any{
			"cancun": map[string]any{"target": 3, "max": 6, "baseFeeUpdateFraction": 3338477},
			"prague": map[string]any{"target": 6, "max": 9, "baseFeeUpdateFraction": 5007716},
		},
	}
	genesis := map[string]any{
		"config":        config,
		"nonce":         "0x0",
		"timestamp":     "0x6553f100",
		"extraData":     hexutil.Encode([]byte("stocknode compare")),
		"gasLimit":      hexutil.EncodeUint64(genesisGasLimit),
		"difficulty":    "0x0",
		"mixHash":       common.Hash{}.Hex(),
		"coinbase":      common.Address{}.Hex(),
		"baseFeePerGas": hexutil.EncodeUint64(params.GWei),
		"number":        "0x0",
		"gasUsed":       "0x0",
		"parentHash":    common.Hash{}.Hex(),
		"alloc":         alloc,
	}
	return json.MarshalIndent(genesis, "", " ")
}

func writeGenesis(path string) error {
	data, err := genesisJSON()
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
