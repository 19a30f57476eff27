package rpc

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// eth_config (EIP-7910): the fork the chain is in at its head, the next
// scheduled one and the last one, each with what a client must know to
// build and check transactions for it. Shaped and computed as geth
// answers it (internal/ethapi's Config), on go-ethereum's own fork tables:
// params.ChainConfig for the schedule, forkid for the EIP-2124 fork ID,
// core/vm for the precompiles.

// forkConfig is one fork's configuration.
type forkConfig struct {
	ActivationTime  uint64                    `json:"activationTime"`
	BlobSchedule    *params.BlobConfig        `json:"blobSchedule"`
	ChainID         *hexutil.Big              `json:"chainId"`
	ForkID          hexutil.Bytes             `json:"forkId"`
	Precompiles     map[string]common.Address `json:"precompiles"`
	SystemContracts map[string]common.Address `json:"systemContracts"`
}

// forkConfigs is eth_config's answer; next and last are null when no fork
// is scheduled after the current one.
type forkConfigs struct {
	Current *forkConfig `json:"current"`
	Next    *forkConfig `json:"next"`
	Last    *forkConfig `json:"last"`
}

func ethConfig(s *Server, r *request) error {
	if err := r.maxParams(0); err != nil {
		return err
	}
	c := s.b.Chain.Config()
	genesis := s.b.Chain.BlockChain().Genesis()
	now := r.snap.HeadHeader.Time
	current, last := c.LatestFork(now), c.LatestFork(^uint64(0))
	// The next scheduled fork is the first later one with a time: optional
	// forks (blob-parameter-only ones) may be left out of the schedule.
	var next *uint64
	for f := current + 1; f <= last; f++ {
		if t := c.Timestamp(f); t != nil {
			next = t
			break
		}
	}
	out := forkConfigs{
		Current: forkAt(c, genesis, c.Timestamp(current)),
		Next:    forkAt(c, genesis, next),
		Last:    forkAt(c, genesis, c.Timestamp(last)),
	}
	if out.Next == nil {
		out.Last = nil
	}
	return r.writeJSON(out)
}

// forkAt is the configuration of the fork that activates at *at (nil: no
// such fork).
func forkAt(c *params.ChainConfig, genesis *types.Block, at *uint64) *forkConfig {
	if at == nil {
		return nil
	}
	t := *at
	rules := c.Rules(c.LondonBlock, true, t)
	precompiles := make(map[string]common.Address)
	for addr, p := range vm.ActivePrecompiledContracts(rules) {
		precompiles[p.Name()] = addr
	}
	activation := t
	if genesis.Time() >= t {
		activation = 0 // active from genesis
	}
	id := forkid.NewID(c, genesis, ^uint64(0), t).Hash
	return &forkConfig{
		ActivationTime:  activation,
		BlobSchedule:    c.BlobConfig(c.LatestFork(t)),
		ChainID:         (*hexutil.Big)(c.ChainID),
		ForkID:          id[:],
		Precompiles:     precompiles,
		SystemContracts: c.ActiveSystemContracts(t),
	}
}
