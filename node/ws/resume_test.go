package ws

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/seqlog"
)

// A flashblock read back from the log encodes as the live one did, empty
// ones included.
func TestLoggedFlashblockEncodesAsLive(t *testing.T) {
	header := &types.Header{Number: big.NewInt(9), ParentHash: common.HexToHash("0x01"), Time: 90, GasUsed: 42000, BaseFee: big.NewInt(7)}
	tx := types.NewTx(&types.LegacyTx{Nonce: 1, Gas: 21000, GasPrice: big.NewInt(1)})
	for _, txs := range []types.Transactions{nil, {tx}} {
		live, _ := json.Marshal(flashblock(&pending.Block{Index: 2, Header: header, Transactions: txs}))
		p := seqlog.Preconfirmation{
			Opened:  seqlog.Opened{Number: 9, ParentHash: header.ParentHash, Timestamp: 90, HasBaseFee: true, BaseFee: big.NewInt(7)},
			Index:   2,
			GasUsed: 42000,
		}
		for _, tx := range txs {
			p.Transactions = append(p.Transactions, tx.Hash())
		}
		logged, _ := json.Marshal(loggedFlashblock(p))
		if string(logged) != string(live) {
			t.Fatalf("%d transactions: logged %s, live %s", len(txs), logged, live)
		}
	}
}

// The keys order notifications along each stream, and a resume point
// past a key drops it.
func TestSubscriptionAfter(t *testing.T) {
	tests := []struct {
		name          string
		kind          subKind
		from          resumePoint
		number, index uint64
		want          bool
	}{
		{"head after", kindNewHeads, resumePoint{number: 5}, 6, 0, true},
		{"same head", kindNewHeads, resumePoint{number: 5}, 5, 0, false},
		{"log later in the block", kindLogs, resumePoint{number: 5, index: 2, hasIndex: true}, 5, 3, true},
		{"the same log", kindLogs, resumePoint{number: 5, index: 2, hasIndex: true}, 5, 2, false},
		{"a log of a block taken whole", kindLogs, resumePoint{number: 5}, 5, 9, false},
		{"next flashblock", kindFlashblocks, resumePoint{number: 5, index: 1, hasIndex: true}, 5, 2, true},
		{"next block's first flashblock", kindFlashblocks, resumePoint{number: 5, index: 7, hasIndex: true}, 6, 0, true},
		{"an earlier flashblock", kindFlashblocks, resumePoint{number: 5, index: 1, hasIndex: true}, 5, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &subscription{kind: tt.kind, lastNumber: tt.from.number, lastIndex: tt.from.index, wholeBlock: !tt.from.hasIndex}
			if got := s.after(tt.number, tt.index); got != tt.want {
				t.Fatalf("after(%d, %d) = %v, want %v", tt.number, tt.index, got, tt.want)
			}
		})
	}
}
