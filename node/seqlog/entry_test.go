package seqlog

import (
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
)

func TestEntriesRoundTrip(t *testing.T) {
	txs := transfers(t, 3)
	block, receipts := sealedBlock(t, txs)
	sealed, err := NewSealed(block, receipts)
	if err != nil {
		t.Fatal(err)
	}
	preLondon := pendingHeader(3)
	preLondon.BaseFee, preLondon.ParentBeaconRoot, preLondon.ExcessBlobGas, preLondon.BlobGasUsed = nil, nil, nil, nil
	prague := pendingHeader(8)
	tests := []struct {
		name  string
		entry Entry
	}{
		{"opened", NewOpened(prague, NewPayloadID(prague))},
		{"opened before London", NewOpened(preLondon, NewPayloadID(preLondon))},
		{"preconfirmed", Preconfirmed{Number: 8, PayloadID: NewPayloadID(prague), Index: 2, GasUsed: 63_000, Transactions: rawTxs(t, txs)}},
		{"preconfirmed nothing", Preconfirmed{Number: 8, PayloadID: NewPayloadID(prague), Index: 3, GasUsed: 63_000, Transactions: [][]byte{}}},
		{"sealed", sealed},
		{"accepted", Accepted{Transactions: rawTxs(t, txs[:1])}},
	}
	l := openTest(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := mustAppend(t, l, tt.entry)
			recs := readAll(t, l, seq)
			if len(recs) != 1 || recs[0].Seq != seq {
				t.Fatalf("read %d records from %d, want the one appended", len(recs), seq)
			}
			if got := recs[0].Entry; !reflect.DeepEqual(got, tt.entry) {
				t.Errorf("read %#v\nappended %#v", got, tt.entry)
			}
		})
	}
}

// A replica rebuilds the sequencer's pending header from Opened exactly.
func TestOpenedHeader(t *testing.T) {
	preLondon := pendingHeader(3)
	preLondon.BaseFee, preLondon.ParentBeaconRoot, preLondon.ExcessBlobGas, preLondon.BlobGasUsed = nil, nil, nil, nil
	for _, h := range []*types.Header{pendingHeader(8), preLondon} {
		if got := NewOpened(h, PayloadID{}).Header(); got.Hash() != h.Hash() {
			t.Errorf("block %d: header from Opened %+v\nwant %+v", h.Number, got, h)
		}
	}
}

func TestSealedDecodeBlock(t *testing.T) {
	txs := transfers(t, 5)
	block, receipts := sealedBlock(t, txs)
	sealed, err := NewSealed(block, receipts)
	if err != nil {
		t.Fatal(err)
	}
	if want := types.DeriveSha(receipts, trie.NewStackTrie(nil)); sealed.ReceiptsHash != want || want != block.ReceiptHash() {
		t.Errorf("receipts hash %s, want %s (header %s)", sealed.ReceiptsHash, want, block.ReceiptHash())
	}
	got, err := sealed.DecodeBlock()
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash() != block.Hash() || len(got.Transactions()) != len(txs) {
		t.Errorf("decoded block %s with %d txs, want %s with %d", got.Hash(), len(got.Transactions()), block.Hash(), len(txs))
	}
	sealed.Hash[0] ^= 1
	if _, err := sealed.DecodeBlock(); err == nil {
		t.Error("DecodeBlock accepted a block that is not the one named")
	}
}

func TestPayloadIDDiffersByRandao(t *testing.T) {
	a, b := pendingHeader(8), pendingHeader(8)
	b.MixDigest[0] ^= 1
	if NewPayloadID(a) == NewPayloadID(b) {
		t.Error("two openings of block 8 with different prevrandao share a payload id")
	}
	if NewPayloadID(a) != NewPayloadID(pendingHeader(8)) {
		t.Error("payload id is not a function of the header")
	}
}
