package flood

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/loadtest/workload"
)

// decodeSend is the transaction a send body carries.
func decodeSend(t *testing.T, body []byte) *types.Transaction {
	t.Helper()
	if !bytes.HasPrefix(body, sendPrefix) || !bytes.HasSuffix(body, sendSuffix) {
		t.Fatalf("body %.80s is not an eth_sendRawTransaction request", body)
	}
	raw, err := hex.DecodeString(string(body[len(sendPrefix) : len(body)-len(sendSuffix)]))
	if err != nil {
		t.Fatal(err)
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	return tx
}

// An account's next transfer is its presigned one of its nonce when there
// is one to the same recipient, and one signed then otherwise: after the
// presigned ones run out, after a nonce read again moved past them or
// stayed below them, or to another recipient.
func TestNextTransfer(t *testing.T) {
	chainID := big.NewInt(84538453)
	signer := types.LatestSignerForChainID(chainID)
	tr := newTransfer(signer, chainID, big.NewInt(100e9), big.NewInt(1e9))
	key := workload.FloodKey(0)
	to, other := common.Address{1}, common.Address{2}
	tests := []struct {
		name      string
		nonce     uint64 // the account's nonce when asked
		to        common.Address
		presigned bool // the answer is a presigned body
	}{
		{"first presigned", 5, to, true},
		{"last presigned", 7, to, true},
		{"past the presigned", 8, to, false},
		{"below the presigned", 4, to, false},
		{"another recipient", 6, other, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &floodAccount{key: key, addr: crypto.PubkeyToAddress(key.PublicKey), nonce: 5}
			if err := presign(tr, []*floodAccount{a}, 3, func(*floodAccount) common.Address { return to }); err != nil {
				t.Fatal(err)
			}
			kept := map[common.Hash][]byte{}
			for _, s := range a.presigned {
				kept[s.hash] = s.body
			}
			a.nonce = tt.nonce
			hash, body, err := tr.next(a, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			tx := decodeSend(t, body)
			if tx.Hash() != hash || tx.Nonce() != tt.nonce || *tx.To() != tt.to {
				t.Errorf("got hash %s nonce %d to %s; want hash %s nonce %d to %s", hash, tx.Nonce(), tx.To(), tx.Hash(), tt.nonce, tt.to)
			}
			if from, _ := types.Sender(signer, tx); from != a.addr {
				t.Errorf("signed by %s, want %s", from, a.addr)
			}
			if _, ok := kept[hash]; ok != tt.presigned {
				t.Errorf("presigned: %v, want %v", ok, tt.presigned)
			}
			a.sent()
			if a.nonce != tt.nonce+1 {
				t.Errorf("nonce after the send %d, want %d", a.nonce, tt.nonce+1)
			}
			for _, s := range a.presigned {
				if s.nonce < a.nonce {
					t.Errorf("presigned nonce %d kept after sending %d", s.nonce, tt.nonce)
				}
			}
		})
	}
}

func TestPresignCount(t *testing.T) {
	tests := []struct{ perAccount, accounts, want int }{
		{64, 1024, 64},
		{64, 10_000, 6},
		{64, 100_000, 0},
		{0, 1024, 0},
		{-1, 1024, 0},
		{64, 0, 64},
	}
	for _, tt := range tests {
		if got := presignCount(tt.perAccount, tt.accounts); got != tt.want {
			t.Errorf("presignCount(%d, %d) = %d, want %d", tt.perAccount, tt.accounts, got, tt.want)
		}
	}
}
