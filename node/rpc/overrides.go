package rpc

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	json "github.com/goccy/go-json"
	"github.com/holiman/uint256"
)

// accountOverride is one entry of eth_call's state override set, as geth
// takes it.
type accountOverride struct {
	Nonce     *hexutil.Uint64             `json:"nonce"`
	Code      *hexutil.Bytes              `json:"code"`
	Balance   *hexutil.Big                `json:"balance"`
	State     map[common.Hash]common.Hash `json:"state"`
	StateDiff map[common.Hash]common.Hash `json:"stateDiff"`
	MoveTo    *common.Address             `json:"movePrecompileToAddress"`
}

// applyStateOverrides decodes raw (nil: none) and applies it to st.
func applyStateOverrides(raw []byte, st *state.StateDB) error {
	if raw == nil {
		return nil
	}
	var overrides map[common.Address]accountOverride
	if err := json.Unmarshal(raw, &overrides); err != nil {
		return err
	}
	for addr, o := range overrides {
		if o.MoveTo != nil {
			return fmt.Errorf("account %s: movePrecompileToAddress is not supported", addr.Hex())
		}
		if o.State != nil && o.StateDiff != nil {
			return fmt.Errorf("account %s has both 'state' and 'stateDiff'", addr.Hex())
		}
		if o.Nonce != nil {
			st.SetNonce(addr, uint64(*o.Nonce), tracing.NonceChangeUnspecified)
		}
		if o.Code != nil {
			st.SetCode(addr, *o.Code, tracing.CodeChangeUnspecified)
		}
		if o.Balance != nil {
			balance, overflow := uint256.FromBig((*big.Int)(o.Balance))
			if overflow {
				return fmt.Errorf("account %s: balance overflows 256 bits", addr.Hex())
			}
			st.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
		}
		if o.State != nil {
			st.SetStorage(addr, o.State)
		}
		for slot, value := range o.StateDiff {
			st.SetState(addr, slot, value)
		}
	}
	// As geth: the overrides become the committed values the EVM prices SSTOREs against.
	st.Finalise(params.Rules{})
	return nil
}

// blockOverrides changes the block context of a call, as geth's.
type blockOverrides struct {
	Number        *hexutil.Big    `json:"number"`
	Time          *hexutil.Uint64 `json:"time"`
	GasLimit      *hexutil.Uint64 `json:"gasLimit"`
	FeeRecipient  *common.Address `json:"feeRecipient"`
	PrevRandao    *common.Hash    `json:"prevRandao"`
	BaseFeePerGas *hexutil.Big    `json:"baseFeePerGas"`
	BlobBaseFee   *hexutil.Big    `json:"blobBaseFee"`
}

// apply changes the header fields the message conversion reads.
func (o *blockOverrides) apply(h *types.Header) *types.Header {
	if o.Number != nil {
		h.Number = (*big.Int)(o.Number)
	}
	if o.Time != nil {
		h.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		h.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		h.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		h.MixDigest = *o.PrevRandao
	}
	if o.BaseFeePerGas != nil {
		h.BaseFee = (*big.Int)(o.BaseFeePerGas)
	}
	return h
}

// applyContext sets what the header does not carry.
func (o *blockOverrides) applyContext(ctx *vm.BlockContext) {
	if o.BlobBaseFee != nil {
		ctx.BlobBaseFee = (*big.Int)(o.BlobBaseFee)
	}
}
