package chain

import (
	"bytes"
	"crypto/ecdsa"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/contracts"
)

// previewGenesisHash pins the preview genesis (with the default faucet): it
// must be the same on every machine and only change on purpose (a change of
// alloc, config, of go-ethereum's system contract code or of the
// tokenized-stock protocol's bytecode: run `make contracts`, then update it).
const previewGenesisHash = "0x3902edf3da4e53b61b5ff62095227a07ac886be5f2bbda503cccfcd2366cec1d"

func defaultFaucet(t *testing.T) common.Address {
	t.Helper()
	key, derived, err := FaucetKey("")
	if err != nil {
		t.Fatal(err)
	}
	if !derived {
		t.Fatal("FaucetKey(\"\") should report a derived key")
	}
	return crypto.PubkeyToAddress(key.PublicKey)
}

func previewGenesis(t *testing.T, faucet common.Address) *core.Genesis {
	t.Helper()
	genesis, err := PreviewGenesis(faucet)
	if err != nil {
		t.Fatal(err)
	}
	return genesis
}

func TestPreviewChain(t *testing.T) {
	faucet := defaultFaucet(t)
	genesis := previewGenesis(t, faucet)
	c, err := Open(Config{DataDir: t.TempDir(), Genesis: genesis, Rules: Rules{MinBaseFee: PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	head := c.Head()
	if head.Number.Sign() != 0 || head.Hash() != genesis.ToBlock().Hash() {
		t.Fatalf("head #%d %s, want the genesis %s", head.Number, head.Hash(), genesis.ToBlock().Hash())
	}
	st, err := c.BlockChain().State()
	if err != nil {
		t.Fatal(err)
	}
	for addr, account := range contracts.Predeploys() {
		if code := st.GetCode(addr); len(code) == 0 || string(code) != string(account.Code) {
			t.Errorf("protocol contract %s not in the preview genesis", addr)
		}
	}
	if got := head.Hash().Hex(); got != previewGenesisHash {
		t.Errorf("preview genesis hash %s, pinned %s", got, previewGenesisHash)
	}
	if head.BaseFee.Cmp(big.NewInt(params.InitialBaseFee)) != 0 || head.GasLimit != PreviewGasLimit || head.Difficulty.Sign() != 0 {
		t.Errorf("genesis base fee %v, gas limit %d, difficulty %v", head.BaseFee, head.GasLimit, head.Difficulty)
	}

	config := c.Config()
	if config.ChainID.Cmp(big.NewInt(84538453)) != 0 {
		t.Errorf("chain ID %v, want 84538453", config.ChainID)
	}
	zero, t0 := big.NewInt(0), head.Time
	if !config.IsShanghai(zero, t0) || !config.IsCancun(zero, t0) || !config.IsPrague(zero, t0) {
		t.Error("Shanghai, Cancun and Prague should be active at genesis")
	}
	if config.OsakaTime != nil || config.IsOsaka(zero, math.MaxUint64) {
		t.Error("Osaka should be off")
	}
	if config.IsAmsterdam(zero, math.MaxUint64) {
		t.Error("Amsterdam should be off")
	}
	if !config.IsPostMerge(0, t0) {
		t.Error("the preview chain is proof of stake from genesis")
	}

	st, err = state.New(head.Root, c.StateDatabase())
	if err != nil {
		t.Fatal(err)
	}
	keys, err := DevKeys(DevAccountCount)
	if err != nil {
		t.Fatal(err)
	}
	tenThousand := uint256.MustFromBig(new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether)))
	for i, key := range keys {
		addr := crypto.PubkeyToAddress(key.PublicKey)
		if got := st.GetBalance(addr); !got.Eq(tenThousand) {
			t.Errorf("dev account %d %s: balance %v, want 10,000 ETH", i, addr, got)
		}
	}
	if got := st.GetBalance(faucet); got.ToBig().Cmp(FaucetBalance) != 0 {
		t.Errorf("faucet %s: balance %v, want %v", faucet, got, FaucetBalance)
	}
	for _, sc := range []struct {
		name string
		addr common.Address
		code []byte
	}{
		{"EIP-4788 beacon roots", params.BeaconRootsAddress, params.BeaconRootsCode},
		{"EIP-2935 history storage", params.HistoryStorageAddress, params.HistoryStorageCode},
		{"EIP-7002 withdrawal queue", params.WithdrawalQueueAddress, params.WithdrawalQueueCode},
		{"EIP-7251 consolidation queue", params.ConsolidationQueueAddress, params.ConsolidationQueueCode},
	} {
		if code := st.GetCode(sc.addr); len(code) == 0 || !bytes.Equal(code, sc.code) {
			t.Errorf("%s at %s: code %d bytes, want go-ethereum's %d bytes", sc.name, sc.addr, len(code), len(sc.code))
		}
		if st.GetNonce(sc.addr) != 1 {
			t.Errorf("%s: nonce %d, want 1", sc.name, st.GetNonce(sc.addr))
		}
	}
	for _, precompile := range []byte{0x01, 0x0a, 0x11} {
		if got := st.GetBalance(common.BytesToAddress([]byte{precompile})); !got.Eq(uint256.NewInt(1)) {
			t.Errorf("precompile %#x: balance %v, want 1 wei", precompile, got)
		}
	}
	if got := c.Rules().MinBaseFee; got == nil || got.Cmp(PreviewMinBaseFee) != 0 {
		t.Errorf("rules: min base fee %v, want %v", got, PreviewMinBaseFee)
	}
}

func TestPreviewGenesisIsDeterministic(t *testing.T) {
	faucet := defaultFaucet(t)
	a, b := previewGenesis(t, faucet).ToBlock().Hash(), previewGenesis(t, faucet).ToBlock().Hash()
	if a != b {
		t.Fatalf("two preview genesis blocks: %s and %s", a, b)
	}
	other := previewGenesis(t, common.HexToAddress("0x1234")).ToBlock().Hash()
	if other == a {
		t.Fatal("the faucet address does not change the genesis")
	}
}

func TestReopenWithDifferentGenesisFails(t *testing.T) {
	dir := t.TempDir()
	genesis := previewGenesis(t, defaultFaucet(t))
	c, err := Open(Config{DataDir: dir, Genesis: genesis, CheckGenesis: true})
	if err != nil {
		t.Fatal(err)
	}
	stored := c.Head().Hash()
	c.Close()

	other := previewGenesis(t, common.HexToAddress("0x1234"))
	_, err = Open(Config{DataDir: dir, Genesis: other, CheckGenesis: true})
	if err == nil {
		t.Fatal("reopened with a different genesis")
	}
	t.Logf("error: %v", err)
	for _, want := range []string{stored.Hex(), other.ToBlock().Hash().Hex(), "--datadir"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	// The failed open released the database and left it as it was.
	c, err = Open(Config{DataDir: dir, Genesis: genesis, CheckGenesis: true})
	if err != nil {
		t.Fatalf("reopen with the right genesis after the failure: %v", err)
	}
	if c.Head().Hash() != stored {
		t.Fatalf("head %s after the failed open, want %s", c.Head().Hash(), stored)
	}
	c.Close()

	// Without CheckGenesis the genesis is only a default for an empty
	// database: the stored chain opens, untouched.
	c, err = Open(Config{DataDir: dir, Genesis: other})
	if err != nil {
		t.Fatalf("reopen without CheckGenesis: %v", err)
	}
	defer c.Close()
	if c.Head().Hash() != stored || c.BlockChain().Genesis().Hash() != stored {
		t.Fatalf("head %s, genesis %s after reopen without CheckGenesis, want %s", c.Head().Hash(), c.BlockChain().Genesis().Hash(), stored)
	}
}

func TestOpenEmptyWithoutGenesisFails(t *testing.T) {
	if _, err := Open(Config{DataDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no genesis") {
		t.Fatalf("open of an empty database without genesis: %v", err)
	}
}

// The rules a database was created with win over the ones a later Open passes.
func TestStoredRulesWinOnReopen(t *testing.T) {
	genesis := func() *core.Genesis { return previewGenesis(t, defaultFaucet(t)) }
	for _, tt := range []struct {
		name          string
		created, then *big.Int
	}{
		{"floor kept", PreviewMinBaseFee, big.NewInt(7)},
		{"floor not removed", PreviewMinBaseFee, nil},
		{"no floor not added", nil, PreviewMinBaseFee},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := Open(Config{DataDir: dir, Genesis: genesis(), Rules: Rules{MinBaseFee: tt.created}})
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			for _, g := range []*core.Genesis{genesis(), nil} {
				c, err := Open(Config{DataDir: dir, Genesis: g, Rules: Rules{MinBaseFee: tt.then}})
				if err != nil {
					t.Fatal(err)
				}
				got := c.Rules().MinBaseFee
				if (got == nil) != (tt.created == nil) || (got != nil && got.Cmp(tt.created) != 0) {
					t.Errorf("rules after reopen: min base fee %v, want %v", got, tt.created)
				}
				// The engine that validates blocks has the stored floor too.
				want := NewEngine(tt.created).CalcBaseFee(c.Config(), c.Head())
				if fee := c.Engine().CalcBaseFee(c.Config(), c.Head()); fee.Cmp(want) != 0 {
					t.Errorf("engine base fee %v, want %v", fee, want)
				}
				c.Close()
			}
		})
	}
}

// previewBlocks generates n blocks on the preview genesis with geth's chain
// maker: plain EIP-1559 base fees, one transfer from dev account 0 each.
func previewBlocks(t *testing.T, genesis *core.Genesis, n int) []*types.Block {
	t.Helper()
	keys, err := DevKeys(1)
	if err != nil {
		t.Fatal(err)
	}
	var key *ecdsa.PrivateKey = keys[0]
	from, to := crypto.PubkeyToAddress(key.PublicKey), common.HexToAddress("0xdead")
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), n, func(i int, b *core.BlockGen) {
		b.AddTx(types.MustSignNewTx(key, b.Signer(), &types.DynamicFeeTx{
			ChainID: big.NewInt(PreviewChainID), Nonce: b.TxNonce(from), GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &to, Value: big.NewInt(1),
		}))
	})
	return blocks
}

// Append makes a block the finalized head and it is there after a restart.
func TestAppendPersists(t *testing.T) {
	dir := t.TempDir()
	faucet := defaultFaucet(t)
	c, err := Open(Config{DataDir: dir, Genesis: previewGenesis(t, faucet)})
	if err != nil {
		t.Fatal(err)
	}
	blocks := previewBlocks(t, previewGenesis(t, faucet), 3)
	for _, b := range blocks {
		if err := c.Append(b); err != nil {
			t.Fatal(err)
		}
		if c.Head().Hash() != b.Hash() || c.BlockChain().CurrentFinalBlock().Hash() != b.Hash() || c.BlockChain().CurrentSafeBlock().Hash() != b.Hash() {
			t.Fatalf("after Append(%d): head %d, not the appended block as finalized head", b.NumberU64(), c.Head().Number)
		}
	}
	c.Close()

	c, err = Open(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	last := blocks[len(blocks)-1]
	if c.Head().Hash() != last.Hash() || c.BlockChain().CurrentFinalBlock().Hash() != last.Hash() {
		t.Fatalf("after reopen: head %d %s, finalized %v, want %s", c.Head().Number, c.Head().Hash(), c.BlockChain().CurrentFinalBlock().Number, last.Hash())
	}
	if _, err := state.New(last.Root(), c.StateDatabase()); err != nil {
		t.Fatalf("state of the head after reopen: %v", err)
	}
}

// On a chain created with a floor, a block with the plain EIP-1559 base fee
// (below the floor) is refused: the engine in use has the floor.
func TestAppendEnforcesFloor(t *testing.T) {
	faucet := defaultFaucet(t)
	c, err := Open(Config{InMemory: true, Genesis: previewGenesis(t, faucet), Rules: Rules{MinBaseFee: PreviewMinBaseFee}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	block := previewBlocks(t, previewGenesis(t, faucet), 1)[0]
	if block.BaseFee().Cmp(PreviewMinBaseFee) >= 0 {
		t.Fatalf("generated base fee %v is not below the floor", block.BaseFee())
	}
	err = c.Append(block)
	if err == nil || !strings.Contains(err.Error(), "invalid baseFee") {
		t.Fatalf("Append of a block below the floor: %v", err)
	}
	if c.Head().Number.Sign() != 0 {
		t.Fatal("head moved")
	}
}

// Append is for a single sequencer that never reorgs: a block that does not
// extend the head must be refused, and must not move the head or the
// safe/finalized markers.
func TestAppendRefusesBlocksThatDoNotExtendTheHead(t *testing.T) {
	faucet := defaultFaucet(t)
	c, err := Open(Config{InMemory: true, Genesis: previewGenesis(t, faucet)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	blocks := previewBlocks(t, previewGenesis(t, faucet), 3)
	for _, b := range blocks {
		if err := c.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	head := blocks[2]

	// A fork off the genesis: different transaction, same height 1.
	keys, err := DevKeys(2)
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(keys[1].PublicKey)
	_, fork, _ := core.GenerateChainWithGenesis(previewGenesis(t, faucet), beacon.New(ethash.NewFaker()), 1, func(i int, b *core.BlockGen) {
		b.AddTx(types.MustSignNewTx(keys[1], b.Signer(), &types.DynamicFeeTx{
			ChainID: big.NewInt(PreviewChainID), Nonce: b.TxNonce(from), GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &common.Address{1}, Value: big.NewInt(1),
		}))
	})

	for _, tt := range []struct {
		name  string
		block *types.Block
	}{
		{"known old block", blocks[1]},
		{"fork off an ancestor", fork[0]},
	} {
		err := c.Append(tt.block)
		bc := c.BlockChain()
		t.Logf("%s: Append: %v; head #%d, safe #%d, finalized #%d", tt.name, err, c.Head().Number, bc.CurrentSafeBlock().Number, bc.CurrentFinalBlock().Number)
		if err == nil {
			t.Errorf("%s: Append accepted block #%d that does not extend head #%d", tt.name, tt.block.NumberU64(), head.NumberU64())
		}
		if c.Head().Hash() != head.Hash() || bc.CurrentSafeBlock().Hash() != head.Hash() || bc.CurrentFinalBlock().Hash() != head.Hash() {
			t.Fatalf("%s: head/safe/finalized moved away from #%d", tt.name, head.NumberU64())
		}
	}
}
