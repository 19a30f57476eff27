// Package override is the state and block overrides of the methods that
// run calls on a block's state: eth_call, eth_estimateGas,
// eth_createAccessList, eth_simulateV1 and debug_traceCall, in one place so
// that they decode and apply them alike.
//
// Decoding is strict: a key the override does not define (a misspelt
// "stateDif", say) is an error, not an override silently ignored, as
// go-ethereum 1.17 refuses them in eth_simulateV1. Accounts are checked and
// applied in address order, so that of several bad accounts the error
// always names the same one, and an error leaves the state untouched.
// Precompiles move as the execution-apis specify and go-ethereum does
// (movePrecompileToAddress), with the specification's codes for a move to
// itself (-38022) and two moves to one address (-38023).
//
// Adapted from go-ethereum v1.17.10 internal/ethapi/override/override.go
// (Copyright 2024 The go-ethereum Authors, GNU LGPL v3 or later).
package override

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/codec"
)

// The error codes of precompile moves (execution-apis src/eth/execute.yaml,
// eth_simulateV1's errors).
const (
	CodeMoveToItself      = -38022 // movePrecompileToAddress names the account itself
	CodeMoveToSameAddress = -38023 // two precompiles moved to one address
)

// Account replaces parts of one account before the calls run. State and
// StateDiff exclude each other: State replaces the whole storage, StateDiff
// changes the slots it names.
type Account struct {
	Nonce     *hexutil.Uint64             `json:"nonce"`
	Code      *hexutil.Bytes              `json:"code"`
	Balance   *hexutil.Big                `json:"balance"` // at most 256 bits (hexutil.Big refuses more)
	State     map[common.Hash]common.Hash `json:"state"`
	StateDiff map[common.Hash]common.Hash `json:"stateDiff"`
	MoveTo    *common.Address             `json:"movePrecompileToAddress"`
}

// State is a set of account overrides by address.
type State map[common.Address]Account

// ParseState decodes a state override set (a JSON object of account
// overrides by address; null or nothing: none). An account given as null
// overrides nothing.
func ParseState(raw []byte) (State, error) {
	if !isSet(raw) {
		return nil, nil
	}
	var accounts map[common.Address]json.RawMessage
	if err := json.Unmarshal(raw, &accounts); err != nil {
		return nil, err
	}
	o := make(State, len(accounts))
	// Sorted, so that of several bad accounts the error names the same one.
	for _, addr := range slices.SortedFunc(maps.Keys(accounts), common.Address.Cmp) {
		var a Account
		if raw := accounts[addr]; isSet(raw) {
			if err := strictDecode(raw, &a); err != nil {
				return nil, fmt.Errorf("account %s: %w", addr.Hex(), err)
			}
		}
		o[addr] = a
	}
	return o, nil
}

// Apply checks the whole set, then writes it into st account by account in
// address order. precompiles is the block's active set, changed in place:
// an overridden precompile's address stops being a precompile (its
// override, code or balance, is what calls find there), and a moved
// precompile runs at its new address instead. A nil precompiles is a
// method that moves none (eth_createAccessList, as go-ethereum's): a move
// is refused and precompiles stay where they are. Apply reports whether
// precompiles changed. Errors are *codec.Error: -32602, or the codes of
// the moves the specification refuses (CodeMoveToItself,
// CodeMoveToSameAddress); st is untouched then.
func (o State) Apply(st *state.StateDB, precompiles vm.PrecompiledContracts) (bool, error) {
	if len(o) == 0 {
		return false, nil
	}
	addrs := slices.SortedFunc(maps.Keys(o), common.Address.Cmp)
	if err := o.check(addrs, precompiles); err != nil {
		return false, err
	}
	changed := false
	var moved map[common.Address]vm.PrecompiledContract
	for _, addr := range addrs {
		account := o[addr]
		if p, ok := precompiles[addr]; ok {
			if account.MoveTo != nil {
				if moved == nil {
					moved = make(map[common.Address]vm.PrecompiledContract)
				}
				moved[*account.MoveTo] = p
			}
			delete(precompiles, addr)
			changed = true
		}
		if account.Nonce != nil {
			st.SetNonce(addr, uint64(*account.Nonce), tracing.NonceChangeUnspecified)
		}
		if account.Code != nil {
			st.SetCode(addr, *account.Code, tracing.CodeChangeUnspecified)
		}
		if account.Balance != nil {
			balance, _ := uint256.FromBig(account.Balance.ToInt()) // check refused > 256 bits and < 0
			st.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
		}
		if account.State != nil {
			st.SetStorage(addr, account.State)
		}
		for slot, value := range account.StateDiff {
			st.SetState(addr, slot, value)
		}
	}
	// Moved last: a precompile moved onto another precompile's address
	// replaces it, whichever address comes first.
	maps.Copy(precompiles, moved)
	// As if written by a transaction before the calls: the overrides
	// become the values SSTORE prices are computed against.
	st.Finalise(params.Rules{})
	return changed, nil
}

// check refuses, before anything changes, what the specification and
// go-ethereum refuse.
func (o State) check(addrs []common.Address, precompiles vm.PrecompiledContracts) error {
	var destinations map[common.Address]common.Address
	for _, addr := range addrs {
		account := o[addr]
		if account.State != nil && account.StateDiff != nil {
			return invalidParams("account %s has both 'state' and 'stateDiff'", addr.Hex())
		}
		if b := account.Balance; b != nil && (b.ToInt().Sign() < 0 || b.ToInt().BitLen() > 256) {
			return invalidParams("account %s: balance out of range", addr.Hex()) // decoding refuses it; a set made in Go may not
		}
		if account.MoveTo == nil {
			continue
		}
		to := *account.MoveTo
		if precompiles == nil {
			return invalidParams("account %s: movePrecompileToAddress is not supported by this method", addr.Hex())
		}
		// Not a precompile first, as go-ethereum: only a precompile moves.
		switch _, isPrecompile := precompiles[addr]; {
		case !isPrecompile:
			return invalidParams("account %s is not a precompile", addr.Hex())
		case to == addr:
			return codeError(CodeMoveToItself, "account %s: movePrecompileToAddress references itself", addr.Hex())
		}
		if other, ok := destinations[to]; ok {
			return codeError(CodeMoveToSameAddress, "accounts %s and %s are both moved to %s", other.Hex(), addr.Hex(), to.Hex())
		}
		if destinations == nil {
			destinations = make(map[common.Address]common.Address)
		}
		destinations[to] = addr
		if _, overridden := o[to]; overridden {
			return invalidParams("account %s is already overridden", to.Hex())
		}
	}
	return nil
}

// Block replaces fields of the block a call runs in. Number is the
// specification's uint64. BeaconRoot and Withdrawals belong to
// eth_simulateV1's blocks only: the methods that run one call refuse them
// (ForCall), as go-ethereum does. Difficulty changes nothing after the
// merge (eth_simulateV1 refuses it there).
type Block struct {
	Number        *hexutil.Uint64   `json:"number"`
	Difficulty    *hexutil.Big      `json:"difficulty"`
	Time          *hexutil.Uint64   `json:"time"`
	GasLimit      *hexutil.Uint64   `json:"gasLimit"`
	FeeRecipient  *common.Address   `json:"feeRecipient"`
	PrevRandao    *common.Hash      `json:"prevRandao"`
	BaseFeePerGas *hexutil.Big      `json:"baseFeePerGas"`
	BlobBaseFee   *hexutil.Big      `json:"blobBaseFee"`
	BeaconRoot    *common.Hash      `json:"beaconRoot"`
	Withdrawals   types.Withdrawals `json:"withdrawals"`
}

// ParseBlock decodes a block override (null or nothing: none).
func ParseBlock(raw []byte) (*Block, error) {
	if !isSet(raw) {
		return nil, nil
	}
	o := new(Block)
	if err := strictDecode(raw, o); err != nil {
		return nil, err
	}
	return o, nil
}

// ForCall refuses the fields that only eth_simulateV1's blocks take, with
// go-ethereum's words.
func (o *Block) ForCall() error {
	switch {
	case o == nil:
		return nil
	case o.BeaconRoot != nil:
		return errors.New(`block override "beaconRoot" is not supported for this RPC method`)
	case o.Withdrawals != nil:
		return errors.New(`block override "withdrawals" is not supported for this RPC method`)
	}
	return nil
}

// Apply sets the block context's fields o gives, after ForCall (as
// go-ethereum's BlockOverrides.Apply).
func (o *Block) Apply(ctx *vm.BlockContext) error {
	if o == nil {
		return nil
	}
	if err := o.ForCall(); err != nil {
		return err
	}
	if o.Number != nil {
		ctx.BlockNumber = new(big.Int).SetUint64(uint64(*o.Number))
	}
	if o.Difficulty != nil {
		ctx.Difficulty = o.Difficulty.ToInt()
	}
	if o.Time != nil {
		ctx.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		ctx.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		ctx.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		random := *o.PrevRandao
		ctx.Random = &random
	}
	if o.BaseFeePerGas != nil {
		ctx.BaseFee = o.BaseFeePerGas.ToInt()
	}
	if o.BlobBaseFee != nil {
		ctx.BlobBaseFee = o.BlobBaseFee.ToInt()
	}
	return nil
}

// MakeHeader is a copy of h with the header fields o gives (h itself when
// o is nil), as go-ethereum's BlockOverrides.MakeHeader: the blob base fee
// has no header field (Apply sets it), and the difficulty changes only
// before the merge.
func (o *Block) MakeHeader(h *types.Header) *types.Header {
	if o == nil {
		return h
	}
	h = types.CopyHeader(h)
	o.SetHeader(h)
	return h
}

// SetHeader sets, in h itself, the fields MakeHeader sets in a copy.
func (o *Block) SetHeader(h *types.Header) {
	if o.Number != nil {
		h.Number = new(big.Int).SetUint64(uint64(*o.Number))
	}
	if o.Difficulty != nil && (h.Difficulty == nil || h.Difficulty.Sign() != 0) {
		h.Difficulty = o.Difficulty.ToInt()
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
		h.BaseFee = o.BaseFeePerGas.ToInt()
	}
}

func isSet(raw []byte) bool { return len(raw) > 0 && string(raw) != "null" }

// strictDecode decodes an override object, refusing keys it does not
// know: a misspelt override must not be silently ignored. (Keys match
// case-insensitively, as encoding/json and go-ethereum match them.)
func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the override object")
	}
	return nil
}

func codeError(code int, format string, args ...any) *codec.Error {
	return &codec.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func invalidParams(format string, args ...any) *codec.Error {
	return codeError(codec.CodeInvalidParams, format, args...)
}
