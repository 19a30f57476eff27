package simulate

import (
	"encoding/json"
	"fmt"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/override"
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
	BlockOverrides *override.Block
	StateOverrides override.State
	Calls          []codec.CallArgs
}

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
// overrides raw for package override's strict decoding.
type rawPayload struct {
	BlockStateCalls []struct {
		BlockOverrides json.RawMessage   `json:"blockOverrides"`
		StateOverrides json.RawMessage   `json:"stateOverrides"`
		Calls          []json.RawMessage `json:"calls"`
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
	if err := json.Unmarshal(raw, &in); err != nil {
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

func (b *BlockStateCall) decode(blockOverrides, stateOverrides json.RawMessage, calls []json.RawMessage) error {
	var err error
	if b.BlockOverrides, err = override.ParseBlock(blockOverrides); err != nil {
		return fmt.Errorf("blockOverrides: %w", err)
	}
	if o := b.BlockOverrides; o != nil && len(o.Withdrawals) > maxWithdrawalsPerBlock {
		return fmt.Errorf("blockOverrides: %d withdrawals, at most %d", len(o.Withdrawals), maxWithdrawalsPerBlock)
	}
	if b.StateOverrides, err = override.ParseState(stateOverrides); err != nil {
		return fmt.Errorf("stateOverrides: %w", err)
	}
	b.Calls = make([]codec.CallArgs, len(calls))
	for i, raw := range calls {
		if err := codec.ParseCallArgs(raw, &b.Calls[i]); err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
	}
	return nil
}
