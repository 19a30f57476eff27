package simulate

import (
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/override"
)

// Blocks without a number follow their parent; blocks without a time are
// spaced by the block time (sub-second ones share seconds, as the chain's
// own do), the first one on pending takes the pending block's time; gaps
// are filled; numbers must go up and times must not go down.
func TestSanitizeChain(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	type blk struct{ number, time *uint64 }
	tests := []struct {
		name      string
		blockTime time.Duration
		pending   *uint64 // the pending block's time
		blocks    []blk
		numbers   []uint64
		times     []uint64
		code      int
	}{
		{"geth's 12 s without a block time", 0, nil, []blk{{}, {}}, []uint64{11, 12}, []uint64{112, 124}, 0},
		{"200 ms blocks share seconds", 200 * time.Millisecond, nil, make([]blk, 7), []uint64{11, 12, 13, 14, 15, 16, 17}, []uint64{100, 100, 100, 100, 101, 101, 101}, 0},
		{"2 s blocks", 2 * time.Second, nil, []blk{{}, {}}, []uint64{11, 12}, []uint64{102, 104}, 0},
		{"pending: its time first", 200 * time.Millisecond, u(105), make([]blk, 6), []uint64{11, 12, 13, 14, 15, 16}, []uint64{105, 105, 105, 105, 105, 106}, 0},
		{"pending: a gap takes its time", 0, u(105), []blk{{number: u(13)}}, []uint64{11, 12, 13}, []uint64{105, 117, 129}, 0},
		{"pending: a time given wins", 0, u(105), []blk{{time: u(150)}, {}}, []uint64{11, 12}, []uint64{150, 162}, 0},
		{"a given time, then defaults", 200 * time.Millisecond, nil, []blk{{time: u(200)}, {}, {}, {}, {}, {}}, []uint64{11, 12, 13, 14, 15, 16}, []uint64{200, 200, 200, 200, 200, 201}, 0},
		{"a gap", 0, nil, []blk{{number: u(14)}, {}}, []uint64{11, 12, 13, 14, 15}, []uint64{112, 124, 136, 148, 160}, 0},
		{"equal times", 0, nil, []blk{{time: u(100)}, {time: u(100)}}, []uint64{11, 12}, []uint64{100, 100}, 0},
		{"time before the base", 0, nil, []blk{{time: u(99)}}, nil, nil, CodeBlockTimeOrder},
		{"time going down", 0, nil, []blk{{time: u(120)}, {time: u(119)}}, nil, nil, CodeBlockTimeOrder},
		{"a gap after a time", 0, nil, []blk{{time: u(200)}, {number: u(14), time: u(210)}}, nil, nil, CodeBlockTimeOrder},
		{"number of the base", 0, nil, []blk{{number: u(10)}}, nil, nil, CodeBlockNumberOrder},
		{"numbers going down", 0, nil, []blk{{number: u(13)}, {number: u(12)}}, nil, nil, CodeBlockNumberOrder},
		{"the last block within the limit", 0, nil, []blk{{number: u(18)}}, []uint64{11, 12, 13, 14, 15, 16, 17, 18}, nil, 0},
		{"a gap past the limit", 0, nil, []blk{{number: u(19)}}, nil, nil, CodeClientLimit},
		{"a huge gap", 0, nil, []blk{{number: u(1 << 62)}}, nil, nil, CodeClientLimit},
		{"time overflow", 0, nil, []blk{{time: u(1<<64 - 1)}, {}}, nil, nil, codeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := &simulator{
				cfg:  &Config{BlockTime: tt.blockTime, Limits: Limits{Blocks: 8}},
				base: Base{Header: &types.Header{Number: big.NewInt(10), Time: 100}},
			}
			if tt.pending != nil {
				sim.base.Pending = &Pending{Header: &types.Header{Number: big.NewInt(11), Time: *tt.pending}}
			}
			in := make([]BlockStateCall, len(tt.blocks))
			for i, b := range tt.blocks {
				in[i].BlockOverrides = &override.Block{Number: (*hexutil.Uint64)(b.number), Time: (*hexutil.Uint64)(b.time)}
			}
			out, err := sim.sanitizeChain(in)
			if tt.code != 0 {
				var cerr *codec.Error
				if !errors.As(err, &cerr) || cerr.Code != tt.code {
					t.Fatalf("error %v, want code %d", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var numbers, times []uint64
			for _, b := range out {
				numbers = append(numbers, uint64(*b.BlockOverrides.Number))
				times = append(times, uint64(*b.BlockOverrides.Time))
			}
			if fmt.Sprint(numbers) != fmt.Sprint(tt.numbers) || (tt.times != nil && fmt.Sprint(times) != fmt.Sprint(tt.times)) {
				t.Errorf("numbers %v times %v, want %v %v", numbers, times, tt.numbers, tt.times)
			}
		})
	}
}

// Simulations share nothing: the input blocks' overrides stay as given.
func TestSanitizeChainLeavesInput(t *testing.T) {
	sim := &simulator{cfg: &Config{}, base: Base{Header: &types.Header{Number: big.NewInt(1), Time: 100}}}
	o := &override.Block{}
	if _, err := sim.sanitizeChain([]BlockStateCall{{BlockOverrides: o}}); err != nil {
		t.Fatal(err)
	}
	if o.Number != nil || o.Time != nil {
		t.Errorf("the input's overrides were filled in: %+v", o)
	}
}
