package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/common"
)

// Page sizes.
const (
	// DefaultPage is the explorer's page size, and what a limit of zero or
	// less asks for.
	DefaultPage = 25
	// MaxPage is the largest page the explorer's reads return.
	MaxPage = 100
	// MaxWindow is how deep a Query reaches: Skip+Limit at most, as
	// Etherscan's page × offset.
	MaxWindow = 10_000
)

// ErrWindow is a Query that reaches beyond MaxWindow entries.
var ErrWindow = fmt.Errorf("the result window ends beyond entry %d", MaxWindow)

// ErrNotIndexed is a block the index holds nothing of.
var ErrNotIndexed = errors.New("block not in the address index")

func clampPage(limit int) int {
	if limit <= 0 {
		return DefaultPage
	}
	return min(limit, MaxPage)
}

// Transactions returns a page of addr's transactions, newest first, older
// than before, and the cursor of the next page (zero when this page is
// the last). limit is clamped to [1, MaxPage]; zero means DefaultPage.
func (x *Index) Transactions(addr common.Address, before Cursor, limit int) ([]Tx, Cursor, error) {
	if err := x.acquire(); err != nil {
		return nil, Cursor{}, err
	}
	defer x.release()
	return x.reads().transactions(addr, before, limit)
}

// Transfers returns a page of addr's token transfers as Transactions does.
func (x *Index) Transfers(addr common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	if err := x.acquire(); err != nil {
		return nil, Cursor{}, err
	}
	defer x.release()
	return x.reads().transfers(addr, before, limit)
}

// TokenTransfers returns a page of the transfers of the token at token
// (the Transfer logs it emitted) as Transfers does.
func (x *Index) TokenTransfers(token common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	if err := x.acquire(); err != nil {
		return nil, Cursor{}, err
	}
	defer x.release()
	return x.reads().tokenTransfers(token, before, limit)
}

// reads reads the index's database, or one snapshot of it (Snapshot). It
// takes no hold on the index: its caller holds one.
type reads struct{ db pebble.Reader }

// reads reads the database as it is now; hold the index (acquire) while
// they run.
func (x *Index) reads() reads { return reads{x.db} }

func (r reads) transactions(addr common.Address, before Cursor, limit int) ([]Tx, Cursor, error) {
	prefix := prefixKey(tableTx, addr)
	s := span{lower: prefix, upper: prefixEnd(prefix), limit: clampPage(limit)}
	if !before.IsZero() {
		s.upper = txKey(addr, before.Block, before.Index)
	}
	txs, more, err := r.txs(s)
	if err != nil || !more {
		return txs, Cursor{}, err
	}
	last := txs[len(txs)-1]
	return txs, Cursor{Block: last.Block, Index: last.Index}, nil
}

func (r reads) transfers(addr common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	return r.transferPage(tableTransfer, addr, before, limit)
}

func (r reads) tokenTransfers(token common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	return r.transferPage(tableEmitted, token, before, limit)
}

// transferPage is a page of the transfers under table's prefix of addr.
func (r reads) transferPage(table byte, addr common.Address, before Cursor, limit int) ([]Transfer, Cursor, error) {
	prefix := prefixKey(table, addr)
	s := span{lower: prefix, upper: prefixEnd(prefix), limit: clampPage(limit)}
	if !before.IsZero() {
		s.upper = appendLogPos(prefixKey(table, addr), before.Block, before.Index, before.Log)
	}
	trs, more, err := r.transferSpan(s)
	if err != nil || !more {
		return trs, Cursor{}, err
	}
	last := trs[len(trs)-1]
	return trs, Cursor{Block: last.Block, Index: last.TxIndex, Log: last.LogIndex}, nil
}

// Query selects a window of a history by block range, order and offset,
// as Etherscan's API pages.
type Query struct {
	// FromBlock and ToBlock bound the blocks, both included; ToBlock
	// math.MaxUint64 is no bound.
	FromBlock, ToBlock uint64
	// Ascending is oldest first; the default is newest first.
	Ascending bool
	// Skip entries, then return at most Limit; Skip+Limit ≤ MaxWindow.
	Skip, Limit int
}

// span is the part of a table a Query covers under prefix; ok is false
// when it is empty.
func (q Query) span(prefix []byte) (s span, ok bool, err error) {
	switch {
	case q.Skip < 0 || q.Limit <= 0:
		return span{}, false, fmt.Errorf("invalid window: skip %d, limit %d", q.Skip, q.Limit)
	case q.Limit > MaxWindow || q.Skip > MaxWindow-q.Limit:
		return span{}, false, ErrWindow
	case q.FromBlock > q.ToBlock:
		return span{}, false, nil
	}
	s = span{asc: q.Ascending, skip: q.Skip, limit: q.Limit}
	s.lower = binary.BigEndian.AppendUint64(slices.Clip(prefix), q.FromBlock)
	s.upper = prefixEnd(prefix)
	if q.ToBlock < math.MaxUint64 {
		s.upper = binary.BigEndian.AppendUint64(slices.Clip(prefix), q.ToBlock+1)
	}
	return s, true, nil
}

// QueryTransactions returns the window q of addr's transactions.
func (x *Index) QueryTransactions(addr common.Address, q Query) ([]Tx, error) {
	if err := x.acquire(); err != nil {
		return nil, err
	}
	defer x.release()
	r := x.reads()
	s, ok, err := r.historySpan(q, addr, tableTx, func(c Counts) uint64 { return c.Txs })
	if !ok {
		return nil, err
	}
	txs, _, err := r.txs(s)
	return txs, err
}

// historySpan is the span q covers of addr's history in table. When q spans
// every block, the history's size, which count picks from addr's counts,
// bounds it.
func (r reads) historySpan(q Query, addr common.Address, table byte, count func(Counts) uint64) (span, bool, error) {
	s, ok, err := q.span(prefixKey(table, addr))
	if !ok || !q.whole() {
		return s, ok, err
	}
	c, err := r.counts(addr)
	if err != nil {
		return span{}, false, err
	}
	s.expect = remaining(count(c), q.Skip)
	return s, true, nil
}

// whole reports whether q spans every block: the address's counts then
// bound its entries.
func (q Query) whole() bool { return q.FromBlock == 0 && q.ToBlock == math.MaxUint64 }

// remaining is how many of total entries are left after skip.
func remaining(total uint64, skip int) int {
	if total <= uint64(skip) {
		return 0
	}
	return int(min(total-uint64(skip), MaxWindow))
}

// QueryTransfers returns the window q of addr's token transfers, of token
// only when it is not nil.
func (x *Index) QueryTransfers(addr common.Address, token *common.Address, q Query) ([]Transfer, error) {
	if err := x.acquire(); err != nil {
		return nil, err
	}
	defer x.release()
	r := x.reads()
	if token == nil {
		s, ok, err := r.historySpan(q, addr, tableTransfer, func(c Counts) uint64 { return c.Transfers })
		if !ok {
			return nil, err
		}
		trs, _, err := r.transferSpan(s)
		return trs, err
	}
	s, ok, err := q.span(prefixKey(tableByToken, addr, *token))
	if !ok {
		return nil, err
	}
	return r.transfersOfToken(addr, s)
}

// Counts returns the sizes of addr's histories.
func (x *Index) Counts(addr common.Address) (Counts, error) {
	if err := x.acquire(); err != nil {
		return Counts{}, err
	}
	defer x.release()
	return x.reads().counts(addr)
}

func (r reads) counts(addr common.Address) (Counts, error) {
	return readCounts(r.db, prefixKey(tableCount, addr))
}

// Tokens returns a page of the tokens addr ever sent or received, by
// address, after the given one (the last of the previous page; the zero
// address starts at the first). limit is clamped as Transactions's.
func (x *Index) Tokens(addr, after common.Address, limit int) ([]common.Address, error) {
	if err := x.acquire(); err != nil {
		return nil, err
	}
	defer x.release()
	return x.reads().pairs(tableHolding, addr, after, limit)
}

// Holders returns a page of the addresses that ever received token (the
// zero address, which receives what is burnt, is none), as Tokens pages.
func (x *Index) Holders(token, after common.Address, limit int) ([]common.Address, error) {
	if err := x.acquire(); err != nil {
		return nil, err
	}
	defer x.release()
	return x.reads().pairs(tableHolder, token, after, limit)
}

// Input returns the input of the transaction at index of block (nil when
// it has none or the index does not hold it).
func (x *Index) Input(block uint64, index uint32) ([]byte, error) {
	return x.get(inputKey(block, index))
}

// BlockHash returns the hash of a block the index holds entries of.
func (x *Index) BlockHash(number uint64) (common.Hash, error) {
	v, err := x.get(blockKey(number))
	switch {
	case err != nil:
		return common.Hash{}, err
	case v == nil:
		return common.Hash{}, fmt.Errorf("block %d: %w", number, ErrNotIndexed)
	case len(v) != common.HashLength:
		return common.Hash{}, fmt.Errorf("hash of block %d: %w", number, errCorrupt)
	}
	return common.Hash(v), nil
}

// get returns a copy of key's value, nil when there is none.
func (x *Index) get(key []byte) ([]byte, error) {
	if err := x.acquire(); err != nil {
		return nil, err
	}
	defer x.release()
	v, closer, err := x.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("address index: %w", err)
	}
	defer closer.Close()
	return slices.Clone(v), nil
}

func (r reads) pairs(table byte, a, after common.Address, limit int) ([]common.Address, error) {
	prefix := prefixKey(table, a)
	// Keys are prefix|address: the smallest key above prefix|after is
	// that followed by a zero byte.
	s := span{lower: append(prefixKey(table, a, after), 0), upper: prefixEnd(prefix), asc: true, limit: clampPage(limit)}
	var out []common.Address
	_, err := r.scan(s, func(key, _ []byte) error {
		if len(key) != pairKeyLen {
			return errCorrupt
		}
		out = append(out, lastAddr(key))
		return nil
	})
	return out, err
}

// span is a run of one table's keys: [lower, upper), newest (greatest)
// first unless asc, skip entries, then at most limit.
type span struct {
	lower, upper []byte
	asc          bool
	skip, limit  int
	// expect bounds the entries the span yields, from the address's
	// counts, so that a large window is allocated once; 0 is unknown.
	expect int
}

// capacity is what to allocate for the span's entries.
func (s span) capacity() int {
	if s.expect > 0 {
		return min(s.limit, s.expect)
	}
	return min(s.limit, arenaChunk)
}

// scan calls visit with the keys and values of s; more reports whether s
// has entries beyond limit. The value is valid during the call only.
//
// A page is one seek (Last is a SeekLT of the upper bound, First a SeekGE
// of the lower one) and then one step per entry: the histories' keys sort
// by position.
func (r reads) scan(s span, visit func(key, value []byte) error) (more bool, err error) {
	it, err := r.db.NewIter(&pebble.IterOptions{LowerBound: s.lower, UpperBound: s.upper})
	if err != nil {
		return false, fmt.Errorf("address index: %w", err)
	}
	defer func() {
		if cerr := it.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("address index: %w", cerr)
		}
	}()
	next := func() bool {
		if s.asc {
			return it.Next()
		}
		return it.Prev()
	}
	var ok bool
	if s.asc {
		ok = it.First()
	} else {
		ok = it.Last()
	}
	for ; ok && s.skip > 0; ok = next() {
		s.skip--
	}
	for n := 0; ok && n < s.limit; ok, n = next(), n+1 {
		v, err := it.ValueAndErr()
		if err != nil {
			return false, fmt.Errorf("address index: %w", err)
		}
		if err := visit(it.Key(), v); err != nil {
			return false, err
		}
	}
	return ok, nil
}

func (r reads) txs(s span) ([]Tx, bool, error) {
	out := make([]Tx, 0, s.capacity())
	var a arena
	more, err := r.scan(s, func(key, v []byte) error {
		if len(key) != txKeyLen {
			return errCorrupt
		}
		out = append(out, Tx{})
		t := &out[len(out)-1]
		t.Block, t.Index = txPosOf(key)
		return decodeTx(v, t, a.addr(), a.big(), a.big())
	})
	if err != nil {
		return nil, false, err
	}
	return out, more, nil
}

func (r reads) transferSpan(s span) ([]Transfer, bool, error) {
	out := make([]Transfer, 0, s.capacity())
	var a arena
	more, err := r.scan(s, func(key, v []byte) error {
		if len(key) != transferKeyLen {
			return errCorrupt
		}
		out = append(out, Transfer{})
		t := &out[len(out)-1]
		t.Block, t.TxIndex, t.LogIndex = logPosOf(key)
		return decodeTransfer(v, t, a.big(), a.big())
	})
	if err != nil {
		return nil, false, err
	}
	return out, more, nil
}

// transfersOfToken reads the transfers that the by-token keys of s point
// to.
func (r reads) transfersOfToken(addr common.Address, s span) ([]Transfer, error) {
	out := make([]Transfer, 0, s.capacity())
	var a arena
	_, err := r.scan(s, func(key, _ []byte) error {
		if len(key) != byTokenKeyLen {
			return errCorrupt
		}
		var t Transfer
		t.Block, t.TxIndex, t.LogIndex = logPosOf(key)
		v, closer, err := r.db.Get(transferKey(addr, t.Block, t.TxIndex, t.LogIndex))
		if err != nil {
			return fmt.Errorf("transfer of block %d log %d: %w", t.Block, t.LogIndex, err)
		}
		defer closer.Close()
		if err := decodeTransfer(v, &t, a.big(), a.big()); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// arenaChunk is how many values an arena allocates at once.
const arenaChunk = 64

// arena hands out the amounts and addresses a page's entries point to, a
// chunk at a time rather than one allocation each. Each amount comes with
// room for 256 bits of its own, which SetBytes fills without allocating.
type arena struct {
	ints  []big.Int
	addrs []common.Address
}

const wordsPerAmount = 256 / bits.UintSize

func (a *arena) big() *big.Int {
	if len(a.ints) == 0 {
		a.ints = make([]big.Int, 2*arenaChunk)
		words := make([]big.Word, len(a.ints)*wordsPerAmount)
		for i := range a.ints {
			a.ints[i].SetBits(words[i*wordsPerAmount : i*wordsPerAmount : (i+1)*wordsPerAmount])
		}
	}
	z := &a.ints[0]
	a.ints = a.ints[1:]
	return z
}

func (a *arena) addr() *common.Address {
	if len(a.addrs) == 0 {
		a.addrs = make([]common.Address, arenaChunk)
	}
	p := &a.addrs[0]
	a.addrs = a.addrs[1:]
	return p
}
