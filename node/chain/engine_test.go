package chain

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// engineNow is the wall clock the engines under test see: well after the
// preview genesis (2026-01-01).
const engineNow = previewGenesisTime + 1000

// openPreviewInMemory opens an in-memory preview chain: a real
// ChainHeaderReader whose head is the preview genesis.
func openPreviewInMemory(t *testing.T, rules Rules) *Chain {
	t.Helper()
	key, _, err := FaucetKey("")
	if err != nil {
		t.Fatal(err)
	}
	genesis, err := PreviewGenesis(crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(Config{InMemory: true, Genesis: genesis, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testEngine(floor *big.Int) *Engine {
	e := NewEngine(floor)
	e.now = func() time.Time { return time.Unix(engineNow, 0) }
	return e
}

// childHeader is a valid empty post-merge header on parent under floor: one
// second later, base fee max(EIP-1559, floor), every Cancun/Prague field set.
func childHeader(config *params.ChainConfig, floor *big.Int, parent *types.Header) *types.Header {
	h := &types.Header{
		ParentHash:       parent.Hash(),
		UncleHash:        types.EmptyUncleHash,
		Coinbase:         common.HexToAddress("0xc0ffee"),
		Root:             parent.Root,
		TxHash:           types.EmptyTxsHash,
		ReceiptHash:      types.EmptyReceiptsHash,
		Difficulty:       new(big.Int),
		Number:           new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:         parent.GasLimit,
		Time:             parent.Time + 1,
		BaseFee:          NewEngine(floor).CalcBaseFee(config, parent),
		WithdrawalsHash:  &types.EmptyWithdrawalsHash,
		BlobGasUsed:      new(uint64),
		ParentBeaconRoot: &common.Hash{},
		RequestsHash:     &types.EmptyRequestsHash,
	}
	excess := eip4844.CalcExcessBlobGas(config, parent, h.Time)
	h.ExcessBlobGas = &excess
	return h
}

func TestEngineVerifyHeader(t *testing.T) {
	c := openPreviewInMemory(t, Rules{})
	config := c.Config()
	parent := c.Head()
	plain := eip1559.CalcBaseFee(config, parent)
	floor := PreviewMinBaseFee
	if plain.Cmp(floor) >= 0 {
		t.Fatalf("test needs the EIP-1559 base fee after genesis (%v) below the floor (%v)", plain, floor)
	}
	lowFloor := big.NewInt(1)

	cases := []struct {
		name   string
		floor  *big.Int
		mutate func(h *types.Header)
		want   error  // nil: valid; otherwise errors.Is or errText
		text   string // substring of the error when want is errAny
	}{
		{name: "next second", floor: floor},
		{name: "equal timestamp", floor: floor, mutate: func(h *types.Header) { h.Time = parent.Time }},
		{name: "decreasing timestamp", floor: floor, mutate: func(h *types.Header) { h.Time = parent.Time - 1 }, want: errTimestampBeforeParent},
		{name: "timestamp equal to the wall clock", floor: floor, mutate: func(h *types.Header) { h.Time = engineNow }},
		{name: "timestamp one second ahead of the wall clock", floor: floor, mutate: func(h *types.Header) { h.Time = engineNow + 1 }, want: consensus.ErrFutureBlock},
		{name: "timestamp an hour ahead of the wall clock", floor: floor, mutate: func(h *types.Header) { h.Time = engineNow + 3600 }, want: consensus.ErrFutureBlock},

		{name: "floor: base fee exactly the floor (above EIP-1559)", floor: floor, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Set(floor) }},
		{name: "floor: plain EIP-1559 base fee below the floor", floor: floor, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Set(plain) }, want: errAny, text: "invalid baseFee"},
		{name: "floor: one wei below the floor", floor: floor, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Sub(floor, common.Big1) }, want: errAny, text: "invalid baseFee"},
		{name: "floor: one wei above the floor", floor: floor, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Add(floor, common.Big1) }, want: errAny, text: "invalid baseFee"},
		{name: "floor: missing base fee", floor: floor, mutate: func(h *types.Header) { h.BaseFee = nil }, want: errAny, text: "missing baseFee"},
		{name: "low floor: EIP-1559 base fee above the floor", floor: lowFloor, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Set(plain) }},
		{name: "low floor: the floor itself", floor: lowFloor, mutate: func(h *types.Header) { h.BaseFee = big.NewInt(1) }, want: errAny, text: "invalid baseFee"},
		{name: "no floor: EIP-1559 base fee", floor: nil, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Set(plain) }},
		{name: "no floor: preview floor is not the rule", floor: nil, mutate: func(h *types.Header) { h.BaseFee = new(big.Int).Set(floor) }, want: errAny, text: "invalid baseFee"},
		{name: "no floor: missing base fee", floor: nil, mutate: func(h *types.Header) { h.BaseFee = nil }, want: errAny, text: "missing baseFee"},
		{name: "no floor: gas limit jump", floor: nil, mutate: func(h *types.Header) { h.GasLimit = parent.GasLimit * 2 }, want: errAny, text: "invalid gas limit"},
		{name: "floor: gas limit jump", floor: floor, mutate: func(h *types.Header) { h.GasLimit = parent.GasLimit * 2 }, want: errAny, text: "invalid gas limit"},

		{name: "number skips one", floor: floor, mutate: func(h *types.Header) { h.Number = big.NewInt(2) }, want: consensus.ErrInvalidNumber},
		{name: "number equal to the parent's", floor: floor, mutate: func(h *types.Header) { h.Number = big.NewInt(0) }, want: consensus.ErrInvalidNumber},
		{name: "unknown parent", floor: floor, mutate: func(h *types.Header) { h.ParentHash = common.HexToHash("0x01") }, want: consensus.ErrUnknownAncestor},
		{name: "nonzero difficulty after a PoS parent", floor: floor, mutate: func(h *types.Header) { h.Difficulty = big.NewInt(1) }, want: consensus.ErrInvalidTerminalBlock},
		{name: "nonzero difficulty (ethash's value) after a PoS parent", floor: floor, mutate: func(h *types.Header) { h.Difficulty = big.NewInt(params.MinimumDifficulty.Int64()) }, want: consensus.ErrInvalidTerminalBlock},

		{name: "nonzero nonce", floor: floor, mutate: func(h *types.Header) { h.Nonce = types.EncodeNonce(1) }, want: errInvalidNonce},
		{name: "uncle hash", floor: floor, mutate: func(h *types.Header) { h.UncleHash = common.Hash{} }, want: errInvalidUncleHash},
		{name: "extra data 33 bytes", floor: floor, mutate: func(h *types.Header) { h.Extra = make([]byte, 33) }, want: errAny, text: "extra-data"},
		{name: "gas used above limit", floor: floor, mutate: func(h *types.Header) { h.GasUsed = h.GasLimit + 1 }, want: errAny, text: "invalid gasUsed"},
		{name: "missing withdrawals hash", floor: floor, mutate: func(h *types.Header) { h.WithdrawalsHash = nil }, want: errAny, text: "missing withdrawalsHash"},
		{name: "missing beacon root", floor: floor, mutate: func(h *types.Header) { h.ParentBeaconRoot = nil }, want: errAny, text: "missing beaconRoot"},
		{name: "wrong excess blob gas", floor: floor, mutate: func(h *types.Header) { *h.ExcessBlobGas += params.BlobTxBlobGasPerBlob }, want: errAny, text: "excessBlobGas"},
		{name: "Amsterdam field before Amsterdam", floor: floor, mutate: func(h *types.Header) { h.SlotNumber = new(uint64) }, want: errAny, text: "slotNumber"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			h := childHeader(config, tt.floor, parent)
			if tt.mutate != nil {
				tt.mutate(h)
			}
			e := testEngine(tt.floor)
			checkErr(t, e.VerifyHeader(c.BlockChain(), h), tt.want, tt.text)

			// The batch path agrees.
			abort, results := e.VerifyHeaders(c.BlockChain(), []*types.Header{h})
			defer close(abort)
			checkErr(t, <-results, tt.want, tt.text)
		})
	}
}

// errAny marks a case that must fail with an error containing a given text.
var errAny = errors.New("any error")

func checkErr(t *testing.T, err, want error, text string) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("rejected: %v", err)
	case want == nil:
	case err == nil:
		t.Errorf("accepted, want %v %s", want, text)
	case want == errAny && !strings.Contains(err.Error(), text):
		t.Errorf("error %q, want one mentioning %q", err, text)
	case want != errAny && !errors.Is(err, want):
		t.Errorf("error %q, want %q", err, want)
	}
}

// Equal timestamps are the one place where stocknode's rules are looser than
// geth's; make sure the test above is not vacuous.
func TestEngineEqualTimestampIsNotGethRule(t *testing.T) {
	c := openPreviewInMemory(t, Rules{})
	h := childHeader(c.Config(), nil, c.Head())
	h.Time = c.Head().Time
	if err := testEngine(nil).VerifyHeader(c.BlockChain(), h); err != nil {
		t.Fatalf("stocknode rejects an equal timestamp: %v", err)
	}
	if err := beacon.New(ethash.NewFaker()).VerifyHeader(c.BlockChain(), h); err == nil {
		t.Fatal("geth's beacon engine accepts an equal timestamp; the equal-timestamp test proves nothing")
	}
}

// The default clock is the real one.
func TestEngineUsesWallClock(t *testing.T) {
	c := openPreviewInMemory(t, Rules{})
	h := childHeader(c.Config(), nil, c.Head())
	h.Time = uint64(time.Now().Add(time.Hour).Unix())
	if err := NewEngine(nil).VerifyHeader(c.BlockChain(), h); !errors.Is(err, consensus.ErrFutureBlock) {
		t.Fatalf("header an hour ahead: %v, want %v", err, consensus.ErrFutureBlock)
	}
}

func TestEngineCalcBaseFee(t *testing.T) {
	c := openPreviewInMemory(t, Rules{})
	config, parent := c.Config(), c.Head()
	plain := eip1559.CalcBaseFee(config, parent)
	for _, tt := range []struct {
		floor, want *big.Int
	}{
		{nil, plain},
		{big.NewInt(1), plain},
		{PreviewMinBaseFee, PreviewMinBaseFee},
		{new(big.Int).Add(plain, common.Big1), new(big.Int).Add(plain, common.Big1)},
	} {
		e := NewEngine(tt.floor)
		got := e.CalcBaseFee(config, parent)
		if got.Cmp(tt.want) != 0 {
			t.Errorf("floor %v: base fee %v, want %v", tt.floor, got, tt.want)
		}
		got.SetInt64(12345) // must not alias the floor
		if tt.floor != nil && e.minBaseFee.Cmp(tt.floor) != 0 {
			t.Fatalf("CalcBaseFee's result aliases the floor")
		}
	}
}

// chainOf returns n valid headers on parent, each child of the previous one.
func chainOf(config *params.ChainConfig, floor *big.Int, parent *types.Header, n int, mutate func(i int, h *types.Header)) []*types.Header {
	var headers []*types.Header
	for i := range n {
		h := childHeader(config, floor, parent)
		h.Time = parent.Time // five blocks a second
		if mutate != nil {
			mutate(i, h)
		}
		headers = append(headers, h)
		parent = h
	}
	return headers
}

func TestEngineVerifyHeaders(t *testing.T) {
	c := openPreviewInMemory(t, Rules{})
	config, genesis := c.Config(), c.Head()
	floor := PreviewMinBaseFee

	cases := []struct {
		name   string
		floor  *big.Int
		mutate func(i int, h *types.Header)
		bad    int // index of the first header that must fail, -1 for none
		want   error
		text   string
	}{
		{name: "equal timestamps", floor: floor, bad: -1},
		{name: "equal timestamps, no floor", floor: nil, bad: -1},
		{name: "decreasing timestamp", floor: floor, bad: 2, want: errTimestampBeforeParent,
			mutate: func(i int, h *types.Header) {
				if i == 2 {
					h.Time--
				}
			}},
		{name: "future timestamp", floor: floor, bad: 3, want: consensus.ErrFutureBlock,
			mutate: func(i int, h *types.Header) {
				if i == 3 {
					h.Time = engineNow + 1
				}
			}},
		{name: "wrong number", floor: floor, bad: 2, want: consensus.ErrInvalidNumber,
			mutate: func(i int, h *types.Header) {
				if i >= 2 {
					h.Number.Add(h.Number, common.Big1)
				}
			}},
		{name: "base fee below the floor", floor: floor, bad: 1, want: errAny, text: "invalid baseFee",
			mutate: func(i int, h *types.Header) {
				if i == 1 {
					h.BaseFee = new(big.Int).Sub(h.BaseFee, common.Big1)
				}
			}},
		{name: "PoW header after PoS headers", floor: floor, bad: 3, want: errAny, text: "invalid difficulty",
			mutate: func(i int, h *types.Header) {
				if i == 3 {
					h.Difficulty = big.NewInt(params.MinimumDifficulty.Int64())
				}
			}},
		{name: "PoW header first in a batch after a PoS parent", floor: floor, bad: 0, want: consensus.ErrInvalidTerminalBlock,
			mutate: func(i int, h *types.Header) {
				if i == 0 {
					h.Difficulty = big.NewInt(params.MinimumDifficulty.Int64())
				}
			}},
		{name: "unknown ancestor", floor: floor, bad: 0, want: consensus.ErrUnknownAncestor,
			mutate: func(i int, h *types.Header) {
				if i == 0 {
					h.ParentHash = common.HexToHash("0x01")
				}
			}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			headers := chainOf(config, tt.floor, genesis, 5, nil)
			if tt.mutate != nil {
				// Rebuild so that later headers link to the mutated ones.
				headers = chainOf(config, tt.floor, genesis, 5, tt.mutate)
			}
			abort, results := testEngine(tt.floor).VerifyHeaders(c.BlockChain(), headers)
			defer close(abort)
			for i := range headers {
				var err error
				select {
				case err = <-results:
				case <-time.After(10 * time.Second):
					t.Fatalf("no result for header %d", i)
				}
				switch {
				case tt.bad < 0 || i < tt.bad:
					if err != nil {
						t.Errorf("header %d rejected: %v", i, err)
					}
				case i == tt.bad:
					checkErr(t, err, tt.want, tt.text)
				}
			}
		})
	}
}

// malformedPair is a header without a base fee (a pre-London-style header:
// none of the later fields either) on parent, and a valid-looking child of it.
func malformedPair(config *params.ChainConfig, floor *big.Int, parent *types.Header) []*types.Header {
	h0 := childHeader(config, floor, parent)
	h1 := childHeader(config, floor, h0)
	h0.BaseFee, h0.WithdrawalsHash, h0.BlobGasUsed, h0.ExcessBlobGas, h0.ParentBeaconRoot, h0.RequestsHash = nil, nil, nil, nil, nil, nil
	h1.ParentHash = h0.Hash()
	return []*types.Header{h0, h1}
}

// A header without a base fee followed by its child, under a floor, is
// rejected instead of crashing the verifier goroutine (and with it the
// process) on the nil parent base fee.
func TestEngineVerifyHeadersMalformedParent(t *testing.T) {
	c := openPreviewInMemory(t, Rules{})
	for _, floor := range []*big.Int{nil, PreviewMinBaseFee} {
		headers := malformedPair(c.Config(), floor, c.Head())
		abort, results := testEngine(floor).VerifyHeaders(c.BlockChain(), headers)
		for i := range headers {
			if err := <-results; err == nil {
				t.Errorf("floor %v: header %d accepted", floor, i)
			}
		}
		close(abort)
	}
}

// The same through Import: a crafted file with such a pair of blocks is an
// error on a chain with a base fee floor, not a crash.
func TestImportMalformedBaseFeeIsAnError(t *testing.T) {
	c := openPreviewInMemory(t, Rules{MinBaseFee: PreviewMinBaseFee})
	var blocks []*types.Block
	for _, h := range malformedPair(c.Config(), PreviewMinBaseFee, c.Head()) {
		body := types.Body{}
		if h.WithdrawalsHash != nil {
			body.Withdrawals = []*types.Withdrawal{}
		}
		blocks = append(blocks, types.NewBlockWithHeader(h).WithBody(body))
	}
	if _, err := c.Import(context.Background(), writeFile(t, "bad.rlp", encodeBlocks(t, blocks...))); err == nil {
		t.Fatal("file with a header without base fee imported")
	} else {
		t.Logf("import error: %v", err)
	}
	if n := c.Head().Number.Uint64(); n != 0 {
		t.Fatalf("head moved to %d", n)
	}
}

// A PoW block on top of a PoS block is invalid (EIP-3675) and must be
// rejected however it arrives. geth's beacon engine checks this in
// VerifyHeader only: its VerifyHeaders hands an all-PoW batch straight to
// ethash, which accepts it between the merge and Shanghai (after Shanghai
// ethash refuses any header). core.BlockChain always uses VerifyHeaders, so
// the rule must hold there: here for a PoW block appended after an import
// ended at the first PoS block.
func TestPoWBlockAfterPoSRejected(t *testing.T) {
	db, blocks := generateTransition(tcMergeBlock)
	posParent := blocks[tcMergeBlock-1]
	if posParent.Difficulty().Sign() != 0 || posParent.Time() >= tcShanghai {
		t.Fatalf("block %d should be PoS and before Shanghai", posParent.NumberU64())
	}
	engine := beacon.New(ethash.NewFaker())
	config := transitionGenesis().Config
	pow, _ := core.GenerateChain(config, posParent, engine, db, 1, func(i int, b *core.BlockGen) {
		b.SetCoinbase(tcMiner)
		b.SetDifficulty(big.NewInt(tcPoWDiff)) // what ethash computes from a difficulty-0 parent
	})
	powBlock := pow[0]

	// What geth's own BlockChain does with it, for the record.
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), transitionGenesis(), engine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bc.InsertChain(blocks); err != nil {
		t.Fatal(err)
	}
	_, gethErr := bc.InsertChain(types.Blocks{powBlock})
	bc.Stop()
	t.Logf("geth's core.BlockChain with beacon(ethash-faker) on the PoW block after PoS: %v", gethErr)

	c := openTransition(t, t.TempDir())
	defer c.Close()
	if _, err := c.Import(context.Background(), writeFile(t, "prefix.rlp", encodeBlocks(t, blocks...))); err != nil {
		t.Fatal(err)
	}
	err = c.Append(powBlock)
	if !errors.Is(err, consensus.ErrInvalidTerminalBlock) {
		t.Fatalf("Append of a PoW block after a PoS block: %v, want %v", err, consensus.ErrInvalidTerminalBlock)
	}
	if c.Head().Hash() != posParent.Hash() {
		t.Fatalf("head moved to %d", c.Head().Number)
	}
	// And as the first block of an import file.
	if _, err := c.Import(context.Background(), writeFile(t, "pow.rlp", encodeBlocks(t, powBlock))); !errors.Is(err, consensus.ErrInvalidTerminalBlock) {
		t.Fatalf("Import of a PoW block after a PoS block: %v, want %v", err, consensus.ErrInvalidTerminalBlock)
	}
}
