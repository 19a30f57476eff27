package index

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func maxUint256() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(common.Big1, 256), common.Big1)
}

func TestTxValues(t *testing.T) {
	to := common.Address{0x02}
	tests := []struct {
		name string
		tx   Tx
	}{
		{"transfer", Tx{Time: 1_700_000_000, Hash: common.Hash{1}, From: common.Address{1}, To: &to, Value: big.NewInt(5),
			Status: 1, GasUsed: 21_000, Nonce: 3, Gas: 21_000, GasPrice: big.NewInt(1e9), CumulativeGasUsed: 42_000}},
		{"creation that failed", Tx{Hash: common.Hash{2}, From: common.Address{1}, Created: common.Address{9}, Value: new(big.Int),
			GasPrice: new(big.Int), InputLen: 5000, Selector: [4]byte{0x60, 0x80, 0x60, 0x40}}},
		{"largest numbers", Tx{Time: 1<<64 - 1, To: &to, Value: maxUint256(), Status: 1, GasUsed: 1<<64 - 1, Nonce: 1<<64 - 1,
			Gas: 1<<64 - 1, GasPrice: maxUint256(), CumulativeGasUsed: 1<<64 - 1, InputLen: maxInput, Selector: [4]byte{1, 2, 3, 4}}},
		{"short input", Tx{To: &to, Value: new(big.Int), GasPrice: new(big.Int), InputLen: 2, Selector: [4]byte{0xab, 0xcd}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := appendTx(nil, &tt.tx)
			var got Tx
			if err := decodeTx(v, &got, new(common.Address), new(big.Int), new(big.Int)); err != nil {
				t.Fatal(err)
			}
			if show([]Tx{got}) != show([]Tx{tt.tx}) {
				t.Errorf("decoded %+v, want %+v", got, tt.tx)
			}
			// Every truncation, and any trailing byte, is corrupt.
			for n := range len(v) {
				if err := decodeTx(v[:n], &got, new(common.Address), new(big.Int), new(big.Int)); !errors.Is(err, errCorrupt) {
					t.Fatalf("%d of %d bytes: %v", n, len(v), err)
				}
			}
			if err := decodeTx(append(v, 0), &got, new(common.Address), new(big.Int), new(big.Int)); !errors.Is(err, errCorrupt) {
				t.Errorf("a trailing byte: %v", err)
			}
		})
	}
}

func TestTransferValues(t *testing.T) {
	tr := Transfer{Time: 7, TxHash: common.Hash{3}, Token: common.Address{4}, From: common.Address{5}, To: common.Address{6},
		Value: maxUint256(), Nonce: 9, Gas: 100_000, GasPrice: big.NewInt(3e9), GasUsed: 51_000, CumulativeGasUsed: 1 << 40}
	v := appendTransfer(nil, &tr)
	var got Transfer
	if err := decodeTransfer(v, &got, new(big.Int), new(big.Int)); err != nil || show([]Transfer{got}) != show([]Transfer{tr}) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, tr)
	}
	for n := range len(v) {
		if err := decodeTransfer(v[:n], &got, new(big.Int), new(big.Int)); !errors.Is(err, errCorrupt) {
			t.Fatalf("%d of %d bytes: %v", n, len(v), err)
		}
	}
}

// FuzzDecode feeds the decoders arbitrary bytes: they fail, never panic.
func FuzzDecode(f *testing.F) {
	to := common.Address{2}
	f.Add(appendTx(nil, &Tx{To: &to, Value: big.NewInt(1), GasPrice: big.NewInt(2), InputLen: 4}))
	f.Add(appendTransfer(nil, &Transfer{Value: big.NewInt(1), GasPrice: big.NewInt(2)}))
	f.Fuzz(func(t *testing.T, v []byte) {
		var tx Tx
		_ = decodeTx(v, &tx, new(common.Address), new(big.Int), new(big.Int))
		var tr Transfer
		_ = decodeTransfer(v, &tr, new(big.Int), new(big.Int))
	})
}

func TestPrefixEnd(t *testing.T) {
	for _, tt := range []struct{ in, want []byte }{
		{[]byte{0x01}, []byte{0x02}},
		{[]byte{0x01, 0xff}, []byte{0x02}},
		{[]byte{0x61, 0x00, 0xff, 0xff}, []byte{0x61, 0x01}},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := prefixEnd(tt.in); string(got) != string(tt.want) {
			t.Errorf("prefixEnd(%x) = %x, want %x", tt.in, got, tt.want)
		}
	}
}
