package index

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/chaintest"
)

// pagingFixture is a small synthetic history. Address a (key 0) has the
// transactions, as block:index,
//
//	1:0 1:2 2:0 4:1 4:3 5:0
//
// and the transfers, as block:tx:log,
//
//	1:1:0 (token t, in)  1:1:1 (t, out)  4:2:1 (token u, in)  5:0:0 (t, to itself)  5:0:1 (t, burnt)
//
// and busy (no key) receives 150 transactions in block 6.
type pagingFixture struct {
	x             *Index
	a, z, busy    common.Address
	tokenT, token common.Address
}

func newPagingFixture(t *testing.T) *pagingFixture {
	t.Helper()
	s := newSynth(t, 2)
	f := &pagingFixture{a: s.addr(0), z: common.Address{0x22}, busy: common.Address{0xb0},
		tokenT: common.Address{0x77}, token: common.Address{0x78}}
	a, b, z := f.a, s.addr(1), f.z
	other := &types.Log{Address: f.tokenT, Topics: []common.Hash{{0x01}}}
	s.add(spec{from: 0, to: &z},
		spec{from: 1, to: &z, logs: []*types.Log{transferLog(f.tokenT, z, a, 5), transferLog(f.tokenT, a, z, 6)}},
		spec{from: 1, to: &a})
	s.add(spec{from: 0, to: &z})
	s.add(spec{from: 1, to: &z})
	s.add(spec{from: 1, to: &z}, spec{from: 1, to: &a},
		spec{from: 1, to: &z, logs: []*types.Log{other, transferLog(f.token, b, a, 7)}}, spec{from: 0})
	s.add(spec{from: 0, to: &a, logs: []*types.Log{transferLog(f.tokenT, a, a, 8), transferLog(f.tokenT, a, common.Address{}, 9)}})
	var many []spec
	for range 150 {
		many = append(many, spec{from: 1, to: &f.busy})
	}
	s.add(many...)
	f.x = s.index(vfs.NewMem(), "")
	return f
}

func txPositions(txs []Tx) string {
	var out []string
	for _, t := range txs {
		out = append(out, fmt.Sprintf("%d:%d", t.Block, t.Index))
	}
	return strings.Join(out, " ")
}

func transferPositions(trs []Transfer) string {
	var out []string
	for _, t := range trs {
		out = append(out, fmt.Sprintf("%d:%d:%d", t.Block, t.TxIndex, t.LogIndex))
	}
	return strings.Join(out, " ")
}

func TestTransactionsPages(t *testing.T) {
	f := newPagingFixture(t)
	tests := []struct {
		name   string
		before Cursor
		limit  int
		want   string
		next   Cursor
	}{
		{"newest", Cursor{}, 2, "5:0 4:3", Cursor{Block: 4, Index: 3}},
		{"middle", Cursor{Block: 4, Index: 3}, 2, "4:1 2:0", Cursor{Block: 2, Index: 0}},
		{"last page exactly full", Cursor{Block: 2}, 2, "1:2 1:0", Cursor{}},
		{"last page short", Cursor{Block: 2}, 5, "1:2 1:0", Cursor{}},
		{"all in one", Cursor{}, 6, "5:0 4:3 4:1 2:0 1:2 1:0", Cursor{}},
		{"cursor between entries", Cursor{Block: 4, Index: 2}, 2, "4:1 2:0", Cursor{Block: 2}},
		{"cursor past the newest", Cursor{Block: 100}, 1, "5:0", Cursor{Block: 5}},
		{"cursor at the oldest", Cursor{Block: 1}, 3, "", Cursor{}},
		{"zero limit is the default page", Cursor{}, 0, "5:0 4:3 4:1 2:0 1:2 1:0", Cursor{}},
		{"negative limit is the default page", Cursor{}, -3, "5:0 4:3 4:1 2:0 1:2 1:0", Cursor{}},
		{"huge limit clamps", Cursor{}, math.MaxInt, "5:0 4:3 4:1 2:0 1:2 1:0", Cursor{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txs, next, err := f.x.Transactions(f.a, tt.before, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := txPositions(txs); got != tt.want || next != tt.next {
				t.Errorf("got %q next %+v, want %q next %+v", got, next, tt.want, tt.next)
			}
		})
	}
}

func TestPageLimitsClamp(t *testing.T) {
	f := newPagingFixture(t)
	for _, tt := range []struct{ limit, want int }{{0, DefaultPage}, {-1, DefaultPage}, {1, 1}, {MaxPage, MaxPage}, {MaxPage + 1, MaxPage}, {math.MaxInt, MaxPage}} {
		txs, next, err := f.x.Transactions(f.busy, Cursor{}, tt.limit)
		if err != nil || len(txs) != tt.want || next != (Cursor{Block: 6, Index: uint32(150 - tt.want)}) {
			t.Errorf("limit %d: %d transactions, next %+v, %v; want %d", tt.limit, len(txs), next, err, tt.want)
		}
	}
	// Paging through 150 at the largest page: 100, then 50 and the end.
	txs, next, _ := f.x.Transactions(f.busy, Cursor{}, MaxPage)
	rest, end, err := f.x.Transactions(f.busy, next, MaxPage)
	if err != nil || len(txs)+len(rest) != 150 || !end.IsZero() || rest[len(rest)-1].Index != 0 {
		t.Errorf("second page: %d, end %+v, %v", len(rest), end, err)
	}
}

func TestTransfersPages(t *testing.T) {
	f := newPagingFixture(t)
	tests := []struct {
		name   string
		before Cursor
		limit  int
		want   string
		next   Cursor
	}{
		{"newest", Cursor{}, 2, "5:0:1 5:0:0", Cursor{Block: 5, Index: 0, Log: 0}},
		{"middle", Cursor{Block: 5}, 2, "4:2:1 1:1:1", Cursor{Block: 1, Index: 1, Log: 1}},
		{"within a transaction", Cursor{Block: 1, Index: 1, Log: 1}, 2, "1:1:0", Cursor{}},
		{"all", Cursor{}, 0, "5:0:1 5:0:0 4:2:1 1:1:1 1:1:0", Cursor{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trs, next, err := f.x.Transfers(f.a, tt.before, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := transferPositions(trs); got != tt.want || next != tt.next {
				t.Errorf("got %q next %+v, want %q next %+v", got, next, tt.want, tt.next)
			}
		})
	}
}

func TestQueries(t *testing.T) {
	f := newPagingFixture(t)
	all := uint64(math.MaxUint64)
	tests := []struct {
		name string
		q    Query
		want string
		err  error
	}{
		{"ascending", Query{ToBlock: all, Ascending: true, Limit: 100}, "1:0 1:2 2:0 4:1 4:3 5:0", nil},
		{"descending", Query{ToBlock: all, Limit: 100}, "5:0 4:3 4:1 2:0 1:2 1:0", nil},
		{"second page of two", Query{ToBlock: all, Skip: 2, Limit: 2}, "4:1 2:0", nil},
		{"ascending, third page of two", Query{ToBlock: all, Ascending: true, Skip: 4, Limit: 2}, "4:3 5:0", nil},
		{"block range", Query{FromBlock: 2, ToBlock: 4, Ascending: true, Limit: 100}, "2:0 4:1 4:3", nil},
		{"one block, descending", Query{FromBlock: 4, ToBlock: 4, Limit: 100}, "4:3 4:1", nil},
		{"range without entries", Query{FromBlock: 3, ToBlock: 3, Limit: 100}, "", nil},
		{"range beyond the newest", Query{FromBlock: 6, ToBlock: all, Limit: 100}, "", nil},
		{"inverted range", Query{FromBlock: 5, ToBlock: 4, Limit: 100}, "", nil},
		{"skip past the end", Query{ToBlock: all, Skip: 6, Limit: 100}, "", nil},
		{"the whole window", Query{ToBlock: all, Limit: MaxWindow}, "5:0 4:3 4:1 2:0 1:2 1:0", nil},
		{"the window's last page", Query{ToBlock: all, Skip: MaxWindow - 100, Limit: 100}, "", nil},
		{"beyond the window", Query{ToBlock: all, Skip: MaxWindow - 1, Limit: 2}, "", ErrWindow},
		{"a limit beyond the window", Query{ToBlock: all, Limit: MaxWindow + 1}, "", ErrWindow},
		{"overflowing skip", Query{ToBlock: all, Skip: math.MaxInt, Limit: 1}, "", ErrWindow},
		{"zero limit", Query{ToBlock: all}, "", errAny},
		{"negative skip", Query{ToBlock: all, Skip: -1, Limit: 1}, "", errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txs, err := f.x.QueryTransactions(f.a, tt.q)
			if !matches(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if got := txPositions(txs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTransferQueries(t *testing.T) {
	f := newPagingFixture(t)
	all := uint64(math.MaxUint64)
	tests := []struct {
		name  string
		token *common.Address
		q     Query
		want  string
	}{
		{"every token", nil, Query{ToBlock: all, Ascending: true, Limit: 100}, "1:1:0 1:1:1 4:2:1 5:0:0 5:0:1"},
		{"token t", &f.tokenT, Query{ToBlock: all, Ascending: true, Limit: 100}, "1:1:0 1:1:1 5:0:0 5:0:1"},
		{"token t, descending, skipping one", &f.tokenT, Query{ToBlock: all, Skip: 1, Limit: 2}, "5:0:0 1:1:1"},
		{"token t in blocks 2 to 5", &f.tokenT, Query{FromBlock: 2, ToBlock: 5, Limit: 100}, "5:0:1 5:0:0"},
		{"token u", &f.token, Query{ToBlock: all, Limit: 100}, "4:2:1"},
		{"a token never sent", &common.Address{0x99}, Query{ToBlock: all, Limit: 100}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trs, err := f.x.QueryTransfers(f.a, tt.token, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := transferPositions(trs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := f.x.QueryTransfers(f.a, &f.tokenT, Query{ToBlock: all, Skip: MaxWindow, Limit: 1}); !errors.Is(err, ErrWindow) {
		t.Errorf("beyond the window: %v", err)
	}
}

func TestTokensAndHolders(t *testing.T) {
	f := newPagingFixture(t)
	tests := []struct {
		name string
		list func(after common.Address, limit int) ([]common.Address, error)
		all  []common.Address
	}{
		{"tokens of a", func(after common.Address, limit int) ([]common.Address, error) { return f.x.Tokens(f.a, after, limit) },
			[]common.Address{f.tokenT, f.token}},
		{"tokens of z", func(after common.Address, limit int) ([]common.Address, error) { return f.x.Tokens(f.z, after, limit) },
			[]common.Address{f.tokenT}},
		// The burn to the zero address makes no holder.
		{"holders of t", func(after common.Address, limit int) ([]common.Address, error) {
			return f.x.Holders(f.tokenT, after, limit)
		},
			[]common.Address{f.z, f.a}},
		{"holders of u", func(after common.Address, limit int) ([]common.Address, error) {
			return f.x.Holders(f.token, after, limit)
		},
			[]common.Address{f.a}},
		{"holders of nothing", func(after common.Address, limit int) ([]common.Address, error) { return f.x.Holders(f.a, after, limit) },
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slices.SortFunc(tt.all, func(a, b common.Address) int { return a.Cmp(b) })
			got, err := tt.list(common.Address{}, 0)
			if err != nil || !slices.Equal(got, tt.all) {
				t.Fatalf("all: %v, %v; want %v", got, err, tt.all)
			}
			for i := range tt.all {
				page, err := tt.list(tt.all[i], 1)
				want := tt.all[i+1:]
				if len(want) > 1 {
					want = want[:1]
				}
				if err != nil || !slices.Equal(page, want) {
					t.Errorf("after %s: %v, %v; want %v", tt.all[i], page, err, want)
				}
			}
		})
	}
}

func TestCounts(t *testing.T) {
	f := newPagingFixture(t)
	for _, tt := range []struct {
		addr common.Address
		want Counts
	}{
		{f.a, Counts{Txs: 6, Transfers: 5}},
		{f.z, Counts{Txs: 6, Transfers: 2}},
		{f.busy, Counts{Txs: 150}},
		{common.Address{}, Counts{Transfers: 1}},
		{common.Address{0x12}, Counts{}},
		{f.tokenT, Counts{TokenTransfers: 4}},
		{f.token, Counts{TokenTransfers: 1}},
	} {
		if got, err := f.x.Counts(tt.addr); err != nil || got != tt.want {
			t.Errorf("counts of %s: %+v, %v; want %+v", tt.addr, got, err, tt.want)
		}
	}
}

// TestTokenTransfersPages pages the transfers a token emitted, whoever
// sent and received them, as an address's transfers page.
func TestTokenTransfersPages(t *testing.T) {
	f := newPagingFixture(t)
	for _, tt := range []struct {
		name   string
		token  common.Address
		before Cursor
		limit  int
		want   string
		next   Cursor
	}{
		{"newest", f.tokenT, Cursor{}, 3, "5:0:1 5:0:0 1:1:1", Cursor{Block: 1, Index: 1, Log: 1}},
		{"older", f.tokenT, Cursor{Block: 1, Index: 1, Log: 1}, 3, "1:1:0", Cursor{}},
		{"all", f.tokenT, Cursor{}, 0, "5:0:1 5:0:0 1:1:1 1:1:0", Cursor{}},
		{"another token", f.token, Cursor{}, 0, "4:2:1", Cursor{}},
		{"no token", f.a, Cursor{}, 0, "", Cursor{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			trs, next, err := f.x.TokenTransfers(tt.token, tt.before, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := transferPositions(trs); got != tt.want || next != tt.next {
				t.Errorf("got %q next %+v; want %q next %+v", got, next, tt.want, tt.next)
			}
			for _, tr := range trs {
				if tr.Token != tt.token {
					t.Errorf("transfer %d:%d:%d of token %s", tr.Block, tr.TxIndex, tr.LogIndex, tr.Token)
				}
			}
		})
	}
}

func TestClosedIndex(t *testing.T) {
	f := newPagingFixture(t)
	if err := f.x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.x.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, _, err := f.x.Transactions(f.a, Cursor{}, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("read after close: %v", err)
	}
	if _, err := f.x.Counts(f.a); !errors.Is(err, ErrClosed) {
		t.Errorf("counts after close: %v", err)
	}
}

// errAny stands for any error in a table.
var errAny = errors.New("any error")

func matches(err, want error) bool {
	if want == errAny {
		return err != nil
	}
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}

func TestConfig(t *testing.T) {
	c := chaintest.OpenChain(t, chaintest.Config{})
	for _, tt := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"in memory", Config{InMemory: true}, true},
		{"on disk", Config{Dir: t.TempDir(), CacheMB: 8}, true},
		{"no directory", Config{}, false},
		{"negative cache", Config{InMemory: true, CacheMB: -1}, false},
	} {
		x, err := Open(tt.cfg, c, quietLog())
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
		if x != nil {
			x.Close()
		}
	}
}
