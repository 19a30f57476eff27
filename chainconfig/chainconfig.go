// Package chainconfig makes the fork configuration the node's chains
// share: every fork through Prague active at genesis, proof of stake from
// genesis, Osaka and later off.
//
// It is a leaf package (go-ethereum's params only) below the engine rather
// than a part of node/chain, so that everything can use it: the contracts'
// tests run their bytecode on this configuration, and node/chain imports
// contracts, so contracts may not import node/chain or anything above it.
package chainconfig

import (
	"math/big"

	"github.com/ethereum/go-ethereum/params"
)

// Prague is a fresh configuration for chainID with every fork through
// Prague at genesis (block 0, time 0) and the merge at genesis (terminal
// total difficulty 0), with go-ethereum's Cancun and Prague blob
// schedules. Callers may change the copy: a chain whose forks come later
// sets their blocks and times after this.
func Prague(chainID *big.Int) *params.ChainConfig {
	zero := uint64(0)
	cancun, prague := zero, zero
	return &params.ChainConfig{
		ChainID:                 new(big.Int).Set(chainID),
		HomesteadBlock:          big.NewInt(0),
		EIP150Block:             big.NewInt(0),
		EIP155Block:             big.NewInt(0),
		EIP158Block:             big.NewInt(0),
		ByzantiumBlock:          big.NewInt(0),
		ConstantinopleBlock:     big.NewInt(0),
		PetersburgBlock:         big.NewInt(0),
		IstanbulBlock:           big.NewInt(0),
		MuirGlacierBlock:        big.NewInt(0),
		BerlinBlock:             big.NewInt(0),
		LondonBlock:             big.NewInt(0),
		ArrowGlacierBlock:       big.NewInt(0),
		GrayGlacierBlock:        big.NewInt(0),
		MergeNetsplitBlock:      big.NewInt(0),
		TerminalTotalDifficulty: big.NewInt(0),
		ShanghaiTime:            &zero,
		CancunTime:              &cancun,
		PragueTime:              &prague,
		BlobScheduleConfig: &params.BlobScheduleConfig{
			Cancun: params.DefaultCancunBlobConfig,
			Prague: params.DefaultPragueBlobConfig,
		},
	}
}
