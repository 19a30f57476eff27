package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gojson "github.com/goccy/go-json"

	"github.com/stocknode/stocknode/codec"
)

// Payload is eth_simulateV1's first parameter (the spec's EthSimulatePayload).
type Payload struct {
	Blocks                 []BlockStateCall
	TraceTransfers         bool
	Validation             bool
	ReturnFullTransactions bool
}

// BlockStateCall is one simulated block: its overrides and its calls.
type BlockStateCall struct {
	BlockOverrides *BlockOverrides
	StateOverrides StateOverride
	Calls          []codec.CallArgs
}

// BlockOverrides replaces fields of a simulated block's header (geth's
// override.BlockOverrides with the spec's uint64 number).
type BlockOverrides struct {
	Number        *hexutil.Uint64   `json:"number"`
	Difficulty    *hexutil.Big      `json:"difficulty"` // refused after the merge, as geth
	Time          *hexutil.Uint64   `json:"time"`
	GasLimit      *hexutil.Uint64   `json:"gasLimit"`
	FeeRecipient  *common.Address   `json:"feeRecipient"`
	PrevRandao    *common.Hash      `json:"prevRandao"`
	BaseFeePerGas *hexutil.Big      `json:"baseFeePerGas"`
	BlobBaseFee   *hexutil.Big      `json:"blobBaseFee"`
	BeaconRoot    *common.Hash      `json:"beaconRoot"`
	Withdrawals   types.Withdrawals `json:"withdrawals"`
}

// AccountOverride replaces parts of one account before a block's calls run.
type AccountOverride struct {
	Nonce     *hexutil.Uint64             `json:"nonce"`
	Code      *hexutil.Bytes              `json:"code"`
	Balance   *hexutil.Big                `json:"balance"`
	State     map[common.Hash]common.Hash `json:"state"`
	StateDiff map[common.Hash]common.Hash `json:"stateDiff"`
	MoveTo    *common.Address             `json:"movePrecompileToAddress"`
}

// StateOverride is a block's account overrides by address.
type StateOverride map[common.Address]AccountOverride

// Limits bound one simulation.
type Limits struct {
	// Blocks caps the blocks, gaps in their numbers included; 0:
	// DefaultMaxBlocks (the blocks of a gap are made, so it cannot be off).
	Blocks int
	// Calls caps the calls of all blocks together; 0: no cap.
	Calls int
}

// DefaultMaxBlocks is geth's cap, and the spec's suggestion: BLOCKHASH's reach.
const DefaultMaxBlocks = 256

func (l Limits) blocks() int {
	if l.Blocks <= 0 {
		return DefaultMaxBlocks
	}
	return l.Blocks
}

// rawPayload is the wire shape: calls stay raw for codec.ParseCallArgs, the
// overrides raw for a strict decoding that names unknown keys.
type rawPayload struct {
	BlockStateCalls []struct {
		BlockOverrides gojson.RawMessage                    `json:"blockOverrides"`
		StateOverrides map[common.Address]gojson.RawMessage `json:"stateOverrides"`
		Calls          []gojson.RawMessage                  `json:"calls"`
	} `json:"blockStateCalls"`
	TraceTransfers         bool `json:"traceTransfers"`
	Validation             bool `json:"validation"`
	ReturnFullTransactions bool `json:"returnFullTransactions"`
}

// ParsePayload decodes raw, checking it against limits before any call is
// decoded; every error is a *codec.Error: -32602 for malformed input,
// -38026 for a limit, naming the flag (blocksFlag, callsFlag) that sets it.
func ParsePayload(raw []byte, limits Limits, blocksFlag, callsFlag string) (*Payload, error) {
	var in rawPayload
	if err := gojson.Unmarshal(raw, &in); err != nil {
		return nil, invalidParams("invalid argument 0: %v", err)
	}
	n := len(in.BlockStateCalls)
	switch {
	case n == 0:
		return nil, invalidParams("empty input")
	case n > limits.blocks():
		return nil, codeError(CodeClientLimit, "too many blocks: %d, at most %d (%s)", n, limits.blocks(), blocksFlag)
	}
	total := 0
	for _, b := range in.BlockStateCalls {
		total += len(b.Calls)
	}
	if limits.Calls > 0 && total > limits.Calls {
		return nil, codeError(CodeClientLimit, "too many calls: %d, at most %d (%s)", total, limits.Calls, callsFlag)
	}
	p := &Payload{
		Blocks:                 make([]BlockStateCall, n),
		TraceTransfers:         in.TraceTransfers,
		Validation:             in.Validation,
		ReturnFullTransactions: in.ReturnFullTransactions,
	}
	for i, b := range in.BlockStateCalls {
		if err := p.Blocks[i].decode(b.BlockOverrides, b.StateOverrides, b.Calls); err != nil {
			return nil, invalidParams("invalid argument 0: block %d: %v", i, err)
		}
	}
	return p, nil
}

func (b *BlockStateCall) decode(overrides gojson.RawMessage, accounts map[common.Address]gojson.RawMessage, calls []gojson.RawMessage) error {
	if isSet(overrides) {
		b.BlockOverrides = new(BlockOverrides)
		if err := strictDecode(overrides, b.BlockOverrides); err != nil {
			return fmt.Errorf("blockOverrides: %w", err)
		}
		if len(b.BlockOverrides.Withdrawals) > maxWithdrawalsPerBlock {
			return fmt.Errorf("blockOverrides: %d withdrawals, at most %d", len(b.BlockOverrides.Withdrawals), maxWithdrawalsPerBlock)
		}
	}
	if len(accounts) > 0 {
		b.StateOverrides = make(StateOverride, len(accounts))
		// Sorted, so that of several bad accounts the error names the same one.
		for _, addr := range slices.SortedFunc(maps.Keys(accounts), common.Address.Cmp) {
			var o AccountOverride
			if raw := accounts[addr]; isSet(raw) {
				if err := strictDecode(raw, &o); err != nil {
					return fmt.Errorf("stateOverrides: account %s: %w", addr.Hex(), err)
				}
			}
			b.StateOverrides[addr] = o
		}
	}
	b.Calls = make([]codec.CallArgs, len(calls))
	for i, raw := range calls {
		if err := codec.ParseCallArgs(raw, &b.Calls[i]); err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
	}
	return nil
}

func isSet(raw []byte) bool { return len(raw) > 0 && string(raw) != "null" }

// strictDecode decodes an override object, refusing keys it does not know
// (as geth 1.17 does): a misspelt override must not be silently ignored.
// encoding/json, as geth decodes them, for geth's messages; overrides are
// small and rare.
func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
