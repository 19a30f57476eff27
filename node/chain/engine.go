package chain

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/consensus/misc"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

var (
	errTimestampBeforeParent = errors.New("timestamp older than parent")
	errInvalidNonce          = errors.New("invalid nonce")
	errInvalidUncleHash      = errors.New("invalid uncle hash")
)

// Engine is the consensus engine of a single-sequencer chain. It applies
// geth's post-merge header rules with two changes that 200 ms blocks need:
// a timestamp may equal its parent's (five blocks share a second), and it
// must not be ahead of the wall clock. An optional base fee floor keeps the
// fee market meaningful on mostly empty blocks. Pre-merge headers (imported
// PoW chains) go to geth's own beacon(ethash-faker) engine, so one engine
// serves both halves of a PoW-to-PoS chain exactly as `geth import` does.
type Engine struct {
	*beacon.Beacon
	minBaseFee *big.Int
	now        func() time.Time
}

// NewEngine returns the engine; minBaseFee may be nil (plain EIP-1559).
func NewEngine(minBaseFee *big.Int) *Engine {
	return &Engine{Beacon: beacon.New(ethash.NewFaker()), minBaseFee: minBaseFee, now: time.Now}
}

// CalcBaseFee returns the base fee of the block after parent.
func (e *Engine) CalcBaseFee(config *params.ChainConfig, parent *types.Header) *big.Int {
	fee := eip1559.CalcBaseFee(config, parent)
	if e.minBaseFee != nil && fee.Cmp(e.minBaseFee) < 0 {
		fee.Set(e.minBaseFee)
	}
	return fee
}

// VerifyHeader implements consensus.Engine.
func (e *Engine) VerifyHeader(chain consensus.ChainHeaderReader, header *types.Header) error {
	if header.Difficulty.Sign() > 0 {
		return e.Beacon.VerifyHeader(chain, header)
	}
	parent := chain.GetHeader(header.ParentHash, header.Number.Uint64()-1)
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	return e.verifyPoS(chain.Config(), header, parent)
}

// VerifyHeaders implements consensus.Engine. Pre-merge headers (a prefix of the
// batch, as a chain only transitions once) are verified by geth's engine, the
// rest in order against their parents.
func (e *Engine) VerifyHeaders(chain consensus.ChainHeaderReader, headers []*types.Header) (chan<- struct{}, <-chan error) {
	split := len(headers)
	for i, h := range headers {
		if h.Difficulty.Sign() == 0 {
			split = i
			break
		}
	}
	abort := make(chan struct{})
	results := make(chan error, len(headers))
	go func() {
		if split > 0 && !e.verifyPoW(chain, headers[:split], results, abort) {
			return
		}
		for i := split; i < len(headers); i++ {
			var parent *types.Header
			if i > 0 {
				if headers[i-1].Hash() == headers[i].ParentHash {
					parent = headers[i-1]
				}
			} else {
				parent = chain.GetHeader(headers[0].ParentHash, headers[0].Number.Uint64()-1)
			}
			err := consensus.ErrUnknownAncestor
			if parent != nil {
				err = e.verifyPoS(chain.Config(), headers[i], parent)
			}
			select {
			case results <- err:
			case <-abort:
				return
			}
		}
	}()
	return abort, results
}

// verifyPoW verifies a batch of pre-merge headers with geth's engine and
// sends the results; it reports false when aborted. geth's beacon engine
// rejects a PoW header on a PoS parent (EIP-3675) in VerifyHeader but not in
// VerifyHeaders, which hands an all-PoW batch to ethash as is, and ethash
// accepts such a header between the merge and Shanghai. core.BlockChain only
// calls VerifyHeaders, so the check is made here for the batch's first header
// (a PoW header after a PoS one inside the batch fails verifyPoS).
func (e *Engine) verifyPoW(chain consensus.ChainHeaderReader, headers []*types.Header, results chan<- error, abort <-chan struct{}) bool {
	first := headers[0]
	if parent := chain.GetHeader(first.ParentHash, first.Number.Uint64()-1); parent != nil && parent.Difficulty.Sign() == 0 {
		for range headers {
			select {
			case results <- consensus.ErrInvalidTerminalBlock:
			case <-abort:
				return false
			}
		}
		return true
	}
	powAbort, powResults := e.Beacon.VerifyHeaders(chain, headers)
	for range headers {
		select {
		case err := <-powResults:
			results <- err
		case <-abort:
			close(powAbort)
			return false
		}
	}
	return true
}

// verifyPoS checks a post-merge header against its parent. It mirrors geth's
// beacon rules except for the timestamp and base fee rules described on Engine.
func (e *Engine) verifyPoS(config *params.ChainConfig, header, parent *types.Header) error {
	if len(header.Extra) > int(params.MaximumExtraDataSize) {
		return fmt.Errorf("extra-data longer than 32 bytes (%d)", len(header.Extra))
	}
	if header.Nonce != (types.BlockNonce{}) {
		return errInvalidNonce
	}
	if header.UncleHash != types.EmptyUncleHash {
		return errInvalidUncleHash
	}
	if header.Time < parent.Time {
		return fmt.Errorf("%w: parent %d, header %d", errTimestampBeforeParent, parent.Time, header.Time)
	}
	if now := uint64(e.now().Unix()); header.Time > now {
		return fmt.Errorf("%w: header time %d, now %d", consensus.ErrFutureBlock, header.Time, now)
	}
	if header.Difficulty.Sign() != 0 {
		return fmt.Errorf("invalid difficulty: have %v, want 0", header.Difficulty)
	}
	if header.GasLimit > params.MaxGasLimit {
		return fmt.Errorf("invalid gasLimit: have %v, max %v", header.GasLimit, params.MaxGasLimit)
	}
	if header.GasUsed > header.GasLimit {
		return fmt.Errorf("invalid gasUsed: have %d, gasLimit %d", header.GasUsed, header.GasLimit)
	}
	if new(big.Int).Sub(header.Number, parent.Number).Cmp(common.Big1) != 0 {
		return consensus.ErrInvalidNumber
	}
	if err := e.verifyFees(config, header, parent); err != nil {
		return err
	}
	return verifyForkFields(config, header, parent)
}

func (e *Engine) verifyFees(config *params.ChainConfig, header, parent *types.Header) error {
	if e.minBaseFee == nil {
		return eip1559.VerifyEIP1559Header(config, parent, header)
	}
	parentGasLimit := parent.GasLimit
	if !config.IsLondon(parent.Number) {
		parentGasLimit = parent.GasLimit * config.ElasticityMultiplier()
	}
	if err := misc.VerifyGaslimit(parentGasLimit, header.GasLimit); err != nil {
		return err
	}
	if header.BaseFee == nil {
		return errors.New("header is missing baseFee")
	}
	// As eip1559.VerifyEIP1559Header: CalcBaseFee dereferences the parent's
	// base fee, and in a batch the parent is an unverified header.
	if config.IsLondon(parent.Number) && parent.BaseFee == nil {
		return errors.New("parent header is missing baseFee")
	}
	if want := e.CalcBaseFee(config, parent); header.BaseFee.Cmp(want) != 0 {
		return fmt.Errorf("invalid baseFee: have %s, want %s, parentBaseFee %s, parentGasUsed %d",
			header.BaseFee, want, parent.BaseFee, parent.GasUsed)
	}
	return nil
}

// verifyForkFields checks that the fields each fork adds are present exactly
// when the fork is active.
func verifyForkFields(config *params.ChainConfig, header, parent *types.Header) error {
	shanghai := config.IsShanghai(header.Number, header.Time)
	if shanghai && header.WithdrawalsHash == nil {
		return errors.New("missing withdrawalsHash")
	}
	if !shanghai && header.WithdrawalsHash != nil {
		return fmt.Errorf("invalid withdrawalsHash: have %x, expected nil", header.WithdrawalsHash)
	}
	if !config.IsCancun(header.Number, header.Time) {
		switch {
		case header.ExcessBlobGas != nil:
			return fmt.Errorf("invalid excessBlobGas: have %d, expected nil", *header.ExcessBlobGas)
		case header.BlobGasUsed != nil:
			return fmt.Errorf("invalid blobGasUsed: have %d, expected nil", *header.BlobGasUsed)
		case header.ParentBeaconRoot != nil:
			return fmt.Errorf("invalid parentBeaconRoot, have %#x, expected nil", *header.ParentBeaconRoot)
		}
	} else {
		if header.ParentBeaconRoot == nil {
			return errors.New("header is missing beaconRoot")
		}
		if err := eip4844.VerifyEIP4844Header(config, parent, header); err != nil {
			return err
		}
	}
	if config.IsAmsterdam(header.Number, header.Time) {
		if header.BlockAccessListHash == nil {
			return errors.New("header is missing block access list hash")
		}
		if header.SlotNumber == nil {
			return errors.New("header is missing slotNumber")
		}
	} else {
		if header.BlockAccessListHash != nil {
			return fmt.Errorf("invalid block access list hash: have %x, expected nil", *header.BlockAccessListHash)
		}
		if header.SlotNumber != nil {
			return fmt.Errorf("invalid slotNumber: have %d, expected nil", *header.SlotNumber)
		}
	}
	return nil
}
