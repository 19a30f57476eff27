package index

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/node/chain"
)

// model is the index computed the slow way, from every block of a chain
// and its receipts with the fields go-ethereum derives (gas used, contract
// address, effective gas price, log indexes), independently of the
// index's own derivation.
type model struct {
	txs       map[common.Address][]Tx // oldest first
	transfers map[common.Address][]Transfer
	emitted   map[common.Address][]Transfer // by token
	tokens    map[common.Address]map[common.Address]bool
	holders   map[common.Address]map[common.Address]bool
	inputs    map[[2]uint64][]byte
	hashes    map[uint64]common.Hash
}

func scanChain(t *testing.T, c *chain.Chain) *model {
	t.Helper()
	m := &model{txs: map[common.Address][]Tx{}, transfers: map[common.Address][]Transfer{}, emitted: map[common.Address][]Transfer{},
		tokens: map[common.Address]map[common.Address]bool{}, holders: map[common.Address]map[common.Address]bool{},
		inputs: map[[2]uint64][]byte{}, hashes: map[uint64]common.Hash{}}
	bc := c.BlockChain()
	signer := types.LatestSigner(c.Config())
	topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	for n := uint64(0); n <= c.Head().Number.Uint64(); n++ {
		b := bc.GetBlockByNumber(n)
		receipts := bc.GetReceiptsByHash(b.Hash())
		if len(b.Transactions()) > 0 {
			m.hashes[n] = b.Hash()
		}
		for i, tx := range b.Transactions() {
			r := receipts[i]
			from, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			entry := Tx{Block: n, Index: uint32(i), Time: b.Time(), Hash: tx.Hash(), From: from, To: tx.To(),
				Value: tx.Value(), Status: uint8(r.Status), GasUsed: r.GasUsed, Nonce: tx.Nonce(), Gas: tx.Gas(),
				GasPrice: r.EffectiveGasPrice, CumulativeGasUsed: r.CumulativeGasUsed, InputLen: uint32(len(tx.Data()))}
			copy(entry.Selector[:], tx.Data())
			involved := []common.Address{from}
			if tx.To() == nil {
				entry.Created = r.ContractAddress
				involved = append(involved, r.ContractAddress)
			} else if *tx.To() != from {
				involved = append(involved, *tx.To())
			}
			for _, a := range involved {
				m.txs[a] = append(m.txs[a], entry)
			}
			if len(tx.Data()) > 0 {
				m.inputs[[2]uint64{n, uint64(i)}] = tx.Data()
			}
			for _, l := range r.Logs {
				if len(l.Topics) != 3 || l.Topics[0] != topic || len(l.Data) != 32 {
					continue
				}
				tr := Transfer{Block: n, TxIndex: uint32(i), LogIndex: uint32(l.Index), Time: b.Time(), TxHash: tx.Hash(),
					Token: l.Address, From: common.Address(l.Topics[1][12:]), To: common.Address(l.Topics[2][12:]),
					Value: new(big.Int).SetBytes(l.Data), Nonce: tx.Nonce(), Gas: tx.Gas(), GasPrice: r.EffectiveGasPrice,
					GasUsed: r.GasUsed, CumulativeGasUsed: r.CumulativeGasUsed}
				for j, a := range []common.Address{tr.From, tr.To} {
					if j == 1 && a == tr.From {
						break
					}
					m.transfers[a] = append(m.transfers[a], tr)
					set(m.tokens, a, tr.Token)
				}
				m.emitted[tr.Token] = append(m.emitted[tr.Token], tr)
				if tr.To != (common.Address{}) {
					set(m.holders, tr.Token, tr.To)
				}
			}
		}
	}
	return m
}

func set(m map[common.Address]map[common.Address]bool, k, v common.Address) {
	if m[k] == nil {
		m[k] = map[common.Address]bool{}
	}
	m[k][v] = true
}

// show prints entries for comparison: every field, amounts as numbers.
func show[T any](entries []T) string {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%+v\n", e)
	}
	return b.String()
}

func reversed[T any](s []T) []T {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// checkModel compares everything the index answers with m.
func checkModel(t *testing.T, x *Index, m *model) {
	t.Helper()
	addrs := map[common.Address]bool{{0xab, 0xcd}: true} // one never seen
	for a := range m.txs {
		addrs[a] = true
	}
	for a := range m.transfers {
		addrs[a] = true
	}
	for a := range m.emitted {
		addrs[a] = true
	}
	if len(addrs) < 15 {
		t.Fatalf("only %d addresses in the history", len(addrs))
	}
	for a := range addrs {
		checkAddress(t, x, m, a)
	}
	for token, holders := range m.holders {
		got := allPairs(t, func(after common.Address) ([]common.Address, error) { return x.Holders(token, after, 3) })
		if want := sortedKeys(holders); !slices.Equal(got, want) {
			t.Errorf("holders of %s: %v, want %v", token, got, want)
		}
	}
	for key, input := range m.inputs {
		got, err := x.Input(key[0], uint32(key[1]))
		if err != nil || !bytes.Equal(got, input) {
			t.Errorf("input of block %d transaction %d: %x, %v; want %x", key[0], key[1], got, err, input)
		}
	}
	for n, hash := range m.hashes {
		if got, err := x.BlockHash(n); err != nil || got != hash {
			t.Errorf("hash of block %d: %s, %v; want %s", n, got, err, hash)
		}
	}
}

func checkAddress(t *testing.T, x *Index, m *model, a common.Address) {
	t.Helper()
	wantTxs, wantTrs := m.txs[a], m.transfers[a]
	var txs []Tx
	for cursor := (Cursor{}); ; {
		page, next, err := x.Transactions(a, cursor, 7)
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, page...)
		if next.IsZero() {
			break
		}
		cursor = next
	}
	if got, want := show(txs), show(reversed(wantTxs)); got != want {
		t.Errorf("transactions of %s:\n%s\nwant\n%s", a, got, want)
	}
	var trs []Transfer
	for cursor := (Cursor{}); ; {
		page, next, err := x.Transfers(a, cursor, 5)
		if err != nil {
			t.Fatal(err)
		}
		trs = append(trs, page...)
		if next.IsZero() {
			break
		}
		cursor = next
	}
	if got, want := show(trs), show(reversed(wantTrs)); got != want {
		t.Errorf("transfers of %s:\n%s\nwant\n%s", a, got, want)
	}
	wantEmitted := m.emitted[a]
	var emitted []Transfer
	for cursor := (Cursor{}); ; {
		page, next, err := x.TokenTransfers(a, cursor, 5)
		if err != nil {
			t.Fatal(err)
		}
		emitted = append(emitted, page...)
		if next.IsZero() {
			break
		}
		cursor = next
	}
	if got, want := show(emitted), show(reversed(wantEmitted)); got != want {
		t.Errorf("transfers of the token %s:\n%s\nwant\n%s", a, got, want)
	}
	counts, err := x.Counts(a)
	if want := (Counts{Txs: uint64(len(wantTxs)), Transfers: uint64(len(wantTrs)), TokenTransfers: uint64(len(wantEmitted))}); err != nil || counts != want {
		t.Errorf("counts of %s: %+v, %v; want %+v", a, counts, err, want)
	}
	all := Query{ToBlock: math.MaxUint64, Ascending: true, Limit: MaxWindow}
	if got, err := x.QueryTransactions(a, all); err != nil || show(got) != show(wantTxs) {
		t.Errorf("all transactions of %s ascending: %v\n%s", a, err, show(got))
	}
	tokens := allPairs(t, func(after common.Address) ([]common.Address, error) { return x.Tokens(a, after, 2) })
	if want := sortedKeys(m.tokens[a]); !slices.Equal(tokens, want) {
		t.Errorf("tokens of %s: %v, want %v", a, tokens, want)
	}
	for _, token := range tokens {
		var want []Transfer
		for _, tr := range wantTrs {
			if tr.Token == token {
				want = append(want, tr)
			}
		}
		got, err := x.QueryTransfers(a, &token, all)
		if err != nil || show(got) != show(want) {
			t.Errorf("transfers of %s in %s: %v\n%s\nwant\n%s", a, token, err, show(got), show(want))
		}
	}
}

// allPairs pages through a list of addresses.
func allPairs(t *testing.T, page func(after common.Address) ([]common.Address, error)) []common.Address {
	t.Helper()
	var all []common.Address
	after := common.Address{}
	for {
		p, err := page(after)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 {
			return all
		}
		all = append(all, p...)
		after = p[len(p)-1]
	}
}

func sortedKeys(m map[common.Address]bool) []common.Address {
	var keys []common.Address
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
	return keys
}
