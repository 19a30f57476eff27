package chain

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/chainconfig"
)

// The transition chain: PoW blocks 1..7, proof of stake from block 8 on, and
// the time-based forks after the merge (GenerateChain spaces blocks 10 s
// apart from a genesis at time 0, so block n has time 10n).
const (
	tcChainID     = 4242
	tcMergeBlock  = 8   // first PoS block (MergeNetsplitBlock)
	tcShanghai    = 100 // block 10
	tcCancun      = 120 // block 12
	tcPrague      = 140 // block 14
	tcBlocks      = 24
	tcPoWDiff     = 131072 // ethash's difficulty for 10 s blocks from a genesis of params.GenesisDifficulty
	tcBlobBlock   = 12
	tcSetCode     = 14
	tcDelegateUse = 15
	tcRequest     = 16
)

var (
	tcKeyA      = testKey("stocknode transition chain A") // sends most transactions
	tcKeyB      = testKey("stocknode transition chain B") // EIP-7702 authority
	tcKeyC      = testKey("stocknode transition chain C") // blob sender
	tcAddrA     = crypto.PubkeyToAddress(tcKeyA.PublicKey)
	tcAddrB     = crypto.PubkeyToAddress(tcKeyB.PublicKey)
	tcAddrC     = crypto.PubkeyToAddress(tcKeyC.PublicKey)
	tcRecipient = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	tcMiner     = common.HexToAddress("0x000000000000000000000000000000000000beef")
	// tcContract is deployed by A's nonce-1 transaction in block 2.
	tcContract = crypto.CreateAddress(tcAddrA, 1)
)

func testKey(seed string) *ecdsa.PrivateKey {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed)))
	if err != nil {
		panic(err)
	}
	return key
}

// transitionGenesis returns a fresh copy of the transition chain's genesis
// (fresh because core may fill in defaults on the value it is given).
func transitionGenesis() *core.Genesis {
	shanghai, cancun, prague := uint64(tcShanghai), uint64(tcCancun), uint64(tcPrague)
	// Every fork before the merge at genesis; then the merge, Shanghai,
	// Cancun and Prague in turn.
	config := chainconfig.Prague(big.NewInt(tcChainID))
	config.MergeNetsplitBlock = big.NewInt(tcMergeBlock)
	// Total difficulty of the terminal PoW block (genesis + 7 blocks).
	config.TerminalTotalDifficulty = big.NewInt(tcMergeBlock * tcPoWDiff)
	config.ShanghaiTime, config.CancunTime, config.PragueTime = &shanghai, &cancun, &prague
	config.Ethash = new(params.EthashConfig)
	funds := new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))
	alloc := types.GenesisAlloc{
		tcAddrA: {Balance: funds},
		tcAddrB: {Balance: funds},
		tcAddrC: {Balance: funds},
	}
	all := core.SystemContractAllocs()
	for _, addr := range []common.Address{params.BeaconRootsAddress, params.HistoryStorageAddress, params.WithdrawalQueueAddress, params.ConsolidationQueueAddress} {
		alloc[addr] = all[addr]
	}
	return &core.Genesis{
		Config:     config,
		Timestamp:  0,
		ExtraData:  []byte("stocknode transition test"),
		GasLimit:   30_000_000,
		Difficulty: big.NewInt(tcPoWDiff),
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Alloc:      alloc,
	}
}

// delegateCode is the contract's runtime: it stores CALLER in slot 0 and
// NUMBER in slot 1 of whatever account runs it.
var delegateCode = program.New().
	Op(vm.CALLER).Push(0).Op(vm.SSTORE).
	Op(vm.NUMBER).Push(1).Op(vm.SSTORE).
	Bytes()

// blobCommitments are KZG commitments of two real blobs, written out because
// loading the trusted setup to compute them takes 2 s (10 s under -race):
// the zero blob commits to the point at infinity, and the blob whose 4096
// field elements are all 1 (the constant polynomial 1) to the G1 generator.
// TestBlobCommitments recomputes them.
var blobCommitments = []kzg4844.Commitment{
	{0xc0},
	kzg4844.Commitment(common.FromHex("0x97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")),
}

// blobHashes are the versioned hashes of blobCommitments.
func blobHashes() []common.Hash {
	var hashes []common.Hash
	for i := range blobCommitments {
		hashes = append(hashes, kzg4844.CalcBlobHashV1(sha256.New(), &blobCommitments[i]))
	}
	return hashes
}

func TestBlobCommitments(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the KZG trusted setup")
	}
	var blobs [2]kzg4844.Blob
	for i := 31; i < len(blobs[1]); i += 32 {
		blobs[1][i] = 1
	}
	for i := range blobs {
		commitment, err := kzg4844.BlobToCommitment(&blobs[i])
		if err != nil {
			t.Fatal(err)
		}
		if commitment != blobCommitments[i] {
			t.Errorf("blob %d: commitment %x, written out %x", i, commitment, blobCommitments[i])
		}
	}
}

// generateTransition builds the first n blocks of the PoW-to-PoS chain with
// go-ethereum's chain maker and engine; db holds the state of every block.
func generateTransition(n int) (db ethdb.Database, blocks []*types.Block) {
	genesis := transitionGenesis()
	chainID := uint256.NewInt(tcChainID)
	feeCap, bigFeeCap := uint256.NewInt(100*params.GWei), big.NewInt(100*params.GWei)
	tip, bigTip := uint256.NewInt(params.GWei), big.NewInt(params.GWei)
	transfer := func(b *core.BlockGen, value int64) {
		b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.DynamicFeeTx{
			ChainID: big.NewInt(tcChainID), Nonce: b.TxNonce(tcAddrA), GasTipCap: bigTip, GasFeeCap: bigFeeCap,
			Gas: params.TxGas, To: &tcRecipient, Value: big.NewInt(value),
		}))
	}
	db, blocks, _ = core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), n, func(i int, b *core.BlockGen) {
		n := b.Number().Uint64()
		b.SetCoinbase(tcMiner)
		switch n {
		case 1: // PoW, legacy transfer
			b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.LegacyTx{
				Nonce: b.TxNonce(tcAddrA), GasPrice: big.NewInt(10 * params.GWei), Gas: params.TxGas,
				To: &tcRecipient, Value: big.NewInt(1),
			}))
		case 2: // PoW, contract deployment (A's nonce 1)
			b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.DynamicFeeTx{
				ChainID: big.NewInt(tcChainID), Nonce: b.TxNonce(tcAddrA), GasTipCap: bigTip, GasFeeCap: bigFeeCap,
				Gas: 200_000, Data: program.New().ReturnViaCodeCopy(delegateCode).Bytes(),
			}))
		case 3: // PoW, access-list transaction calling the contract
			b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.AccessListTx{
				ChainID: big.NewInt(tcChainID), Nonce: b.TxNonce(tcAddrA), GasPrice: big.NewInt(10 * params.GWei),
				Gas: 100_000, To: &tcContract,
				AccessList: types.AccessList{{Address: tcContract, StorageKeys: []common.Hash{{}}}},
			}))
		case tcMergeBlock, tcMergeBlock + 1:
			transfer(b, int64(n))
		case 10, 11: // Shanghai: withdrawals
			b.AddWithdrawal(&types.Withdrawal{Validator: n, Address: tcRecipient, Amount: 1_000_000_000})
			transfer(b, int64(n))
		case tcBlobBlock: // Cancun: a blob transaction (no sidecar in blocks)
			b.AddTx(types.MustSignNewTx(tcKeyC, b.Signer(), &types.BlobTx{
				ChainID: chainID, Nonce: b.TxNonce(tcAddrC), GasTipCap: tip, GasFeeCap: feeCap,
				Gas: params.TxGas, To: tcRecipient, BlobFeeCap: uint256.NewInt(params.GWei),
				BlobHashes: blobHashes(),
			}))
			transfer(b, int64(n))
		case tcSetCode: // Prague: B delegates to the contract, A pays
			auth, err := types.SignSetCode(tcKeyB, types.SetCodeAuthorization{
				ChainID: *chainID, Address: tcContract, Nonce: b.TxNonce(tcAddrB),
			})
			if err != nil {
				panic(err)
			}
			b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.SetCodeTx{
				ChainID: chainID, Nonce: b.TxNonce(tcAddrA), GasTipCap: tip, GasFeeCap: feeCap,
				Gas: 100_000, To: tcAddrB, AuthList: []types.SetCodeAuthorization{auth},
			}))
		case tcDelegateUse: // call B, which now runs the contract's code
			b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.DynamicFeeTx{
				ChainID: big.NewInt(tcChainID), Nonce: b.TxNonce(tcAddrA), GasTipCap: bigTip, GasFeeCap: bigFeeCap,
				Gas: 100_000, To: &tcAddrB,
			}))
		case tcRequest: // an EIP-7002 withdrawal request: a nonempty requests hash
			input := make([]byte, 56)
			input[0] = 0xaa
			b.AddTx(types.MustSignNewTx(tcKeyA, b.Signer(), &types.DynamicFeeTx{
				ChainID: big.NewInt(tcChainID), Nonce: b.TxNonce(tcAddrA), GasTipCap: bigTip, GasFeeCap: bigFeeCap,
				Gas: 300_000, To: &params.WithdrawalQueueAddress, Value: big.NewInt(1_000), Data: input,
			}))
		default:
			if n%3 == 0 {
				transfer(b, int64(n))
			}
		}
	})
	return db, blocks
}

// transition is the chain as go-ethereum's own code path sees it: inserted
// into a plain core.BlockChain with beacon(ethash-faker) and exported with
// (*core.BlockChain).Export, the function behind `geth export`.
type transition struct {
	blocks   []*types.Block
	gethFile []byte
	gethHead *types.Header
}

var loadTransition = sync.OnceValues(func() (*transition, error) {
	_, blocks := generateTransition(tcBlocks)
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), transitionGenesis(), beacon.New(ethash.NewFaker()), nil)
	if err != nil {
		return nil, err
	}
	defer bc.Stop()
	if n, err := bc.InsertChain(blocks); err != nil {
		return nil, errors.Join(errors.New("geth rejects the generated chain"), err, errors.New(blocks[n].Number().String()))
	}
	var buf bytes.Buffer
	if err := bc.Export(&buf); err != nil {
		return nil, err
	}
	return &transition{blocks: blocks, gethFile: buf.Bytes(), gethHead: bc.CurrentBlock()}, nil
})

func getTransition(t *testing.T) *transition {
	t.Helper()
	tc, err := loadTransition()
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// TestTransitionFixture checks that the generated chain has what the import
// tests claim to cover, so that a change in the generator cannot silently
// make them weaker.
func TestTransitionFixture(t *testing.T) {
	tc := getTransition(t)
	config := transitionGenesis().Config
	if len(tc.blocks) != tcBlocks || tc.gethHead.Hash() != tc.blocks[tcBlocks-1].Hash() {
		t.Fatalf("geth head %d %s, want block %d %s", tc.gethHead.Number, tc.gethHead.Hash(), tcBlocks, tc.blocks[tcBlocks-1].Hash())
	}
	td := big.NewInt(tcPoWDiff) // genesis
	txTypes := map[byte]int{}
	for _, b := range tc.blocks {
		n := b.NumberU64()
		if pow := b.Difficulty().Sign() > 0; pow != (n < tcMergeBlock) {
			t.Errorf("block %d: difficulty %v, want PoW exactly before block %d", n, b.Difficulty(), tcMergeBlock)
		}
		if n < tcMergeBlock {
			td.Add(td, b.Difficulty())
		}
		for _, tx := range b.Transactions() {
			txTypes[tx.Type()]++
			if tx.Type() == types.BlobTxType && tx.BlobTxSidecar() != nil {
				t.Errorf("block %d carries a blob sidecar", n)
			}
		}
		h := b.Header()
		if config.IsShanghai(h.Number, h.Time) != (h.WithdrawalsHash != nil) || config.IsCancun(h.Number, h.Time) != (h.ParentBeaconRoot != nil) || config.IsPrague(h.Number, h.Time) != (h.RequestsHash != nil) {
			t.Errorf("block %d (time %d): fork fields do not match the config", n, h.Time)
		}
	}
	if td.Cmp(config.TerminalTotalDifficulty) != 0 {
		t.Errorf("terminal total difficulty %v, config says %v", td, config.TerminalTotalDifficulty)
	}
	head := tc.gethHead
	if !config.IsPrague(head.Number, head.Time) || config.IsOsaka(head.Number, head.Time) {
		t.Errorf("head %d (time %d) should be Prague, not Osaka", head.Number, head.Time)
	}
	for _, typ := range []byte{types.LegacyTxType, types.AccessListTxType, types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType} {
		if txTypes[typ] == 0 {
			t.Errorf("no transaction of type %d in the chain", typ)
		}
	}
	if len(tc.blocks[10-1].Withdrawals()) == 0 {
		t.Error("no withdrawals in block 10")
	}
	if req := tc.blocks[tcRequest-1].Header().RequestsHash; req == nil || *req == types.EmptyRequestsHash {
		t.Errorf("block %d should carry an execution-layer request", tcRequest)
	}
	if tc.blocks[0].Time() == 0 || tc.blocks[tcBlocks-1].Time() > uint64(time.Now().Unix()) {
		t.Error("block times must be in the past")
	}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// encodeBlocks writes blocks in the export format (what block.EncodeRLP and
// geth export write when there is no access list).
func encodeBlocks(t *testing.T, blocks ...*types.Block) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, b := range blocks {
		if err := rlp.Encode(&buf, b); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func openTransition(t *testing.T, dir string) *Chain {
	t.Helper()
	c, err := Open(Config{DataDir: dir, Genesis: transitionGenesis()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func assertHead(t *testing.T, c *Chain, want *types.Header) {
	t.Helper()
	head := c.Head()
	if head.Hash() != want.Hash() || head.Root != want.Root {
		t.Fatalf("head #%d %s root %s, want #%d %s root %s", head.Number, head.Hash(), head.Root, want.Number, want.Hash(), want.Root)
	}
}

// assertTransitionState reads, at the chain's head, what the chain's
// transactions wrote.
func assertTransitionState(t *testing.T, c *Chain) {
	t.Helper()
	st, err := state.New(c.Head().Root, c.StateDatabase())
	if err != nil {
		t.Fatalf("state at head: %v", err)
	}
	if code := st.GetCode(tcContract); !bytes.Equal(code, delegateCode) {
		t.Errorf("contract code %x, want %x", code, delegateCode)
	}
	if code, want := st.GetCode(tcAddrB), types.AddressToDelegation(tcContract); !bytes.Equal(code, want) {
		t.Errorf("B's code %x, want delegation %x", code, want)
	}
	if got := st.GetState(tcAddrB, common.Hash{}); common.BytesToAddress(got[:]) != tcAddrA {
		t.Errorf("B's slot 0 %x, want caller %s", got, tcAddrA)
	}
	if got := st.GetState(tcAddrB, common.BigToHash(big.NewInt(1))); got != common.BigToHash(big.NewInt(tcDelegateUse)) {
		t.Errorf("B's slot 1 %x, want block number %d", got, tcDelegateUse)
	}
	if got := st.GetState(tcContract, common.BigToHash(big.NewInt(1))); got != common.BigToHash(big.NewInt(3)) {
		t.Errorf("contract slot 1 %x, want block number 3", got)
	}
	// geth indexes transactions in the background, and after a restart it
	// may purge and rebuild the whole index (see TestImportSurvivesRestart):
	// wait as its RPC does (it answers "transaction indexing is in progress").
	for deadline := time.Now().Add(10 * time.Second); !c.bc.TxIndexDone(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("transaction indexing not done after 10 s")
		}
	}
	blobTx := c.bc.GetBlockByNumber(tcBlobBlock).Transactions()[0]
	if lookup, tx := c.bc.GetCanonicalTransaction(blobTx.Hash()); tx == nil || lookup.BlockIndex != tcBlobBlock || len(tx.BlobHashes()) != 2 {
		t.Errorf("blob transaction %s not indexed in block %d: lookup %v tx %v; rawdb lookup %v, index tail %v", blobTx.Hash(), tcBlobBlock, lookup, tx != nil, rawdb.ReadTxLookupEntry(c.db, blobTx.Hash()), rawdb.ReadTxIndexTail(c.db))
	}
}

// (b): a file written by geth's exporter imports to geth's head and state.
func TestImportGethExport(t *testing.T) {
	tc := getTransition(t)
	c := openTransition(t, t.TempDir())
	defer c.Close()

	head, err := c.Import(context.Background(), writeFile(t, "geth.rlp", tc.gethFile))
	if err != nil {
		t.Fatal(err)
	}
	if head.Hash() != tc.gethHead.Hash() {
		t.Fatalf("Import returned head %s, want %s", head.Hash(), tc.gethHead.Hash())
	}
	assertHead(t, c, tc.gethHead)
	assertTransitionState(t, c)
	if fin := c.BlockChain().CurrentFinalBlock(); fin == nil || fin.Hash() != tc.gethHead.Hash() {
		t.Errorf("imported head is not finalized: %v", fin)
	}
	if safe := c.BlockChain().CurrentSafeBlock(); safe == nil || safe.Hash() != tc.gethHead.Hash() {
		t.Errorf("imported head is not safe: %v", safe)
	}

	// Importing the same file again is a no-op.
	head, err = c.Import(context.Background(), writeFile(t, "again.rlp", tc.gethFile))
	if err != nil {
		t.Fatalf("second import: %v", err)
	}
	if head.Hash() != tc.gethHead.Hash() {
		t.Fatalf("second import moved the head to %s", head.Hash())
	}
}

// (c): stocknode's export is byte-for-byte geth's, and imports to the same
// head in a fresh chain, plain and gzipped.
func TestExportRoundTrip(t *testing.T) {
	tc := getTransition(t)
	src := openTransition(t, t.TempDir())
	defer src.Close()
	if _, err := src.Import(context.Background(), writeFile(t, "geth.rlp", tc.gethFile)); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	for _, name := range []string{"chain.rlp", "chain.rlp.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			head, err := src.Export(path)
			if err != nil {
				t.Fatal(err)
			}
			if head.Hash() != tc.gethHead.Hash() {
				t.Fatalf("Export returned head %s, want %s", head.Hash(), tc.gethHead.Hash())
			}
			if !strings.HasSuffix(name, ".gz") {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data, tc.gethFile) {
					t.Errorf("export differs from geth's export (%d vs %d bytes)", len(data), len(tc.gethFile))
				}
			}
			dst := openTransition(t, t.TempDir())
			defer dst.Close()
			if _, err := dst.Import(context.Background(), path); err != nil {
				t.Fatal(err)
			}
			assertHead(t, dst, tc.gethHead)
			assertTransitionState(t, dst)
		})
	}
}

// Import into a chain that already holds a prefix continues from it.
func TestImportContinuesFromPrefix(t *testing.T) {
	tc := getTransition(t)
	c := openTransition(t, t.TempDir())
	defer c.Close()

	head, err := c.Import(context.Background(), writeFile(t, "prefix.rlp", encodeBlocks(t, tc.blocks[:tcMergeBlock+2]...)))
	if err != nil {
		t.Fatal(err)
	}
	if head.Number.Uint64() != tcMergeBlock+2 {
		t.Fatalf("prefix import head %d, want %d", head.Number, tcMergeBlock+2)
	}
	// The full file overlaps the prefix (and includes the genesis record).
	if _, err := c.Import(context.Background(), writeFile(t, "full.rlp", tc.gethFile)); err != nil {
		t.Fatal(err)
	}
	assertHead(t, c, tc.gethHead)
}

// Import → close → reopen: the head, its state and its finality survive a
// clean restart, with or without the genesis given again.
//
// The transaction index does too, but not always directly: go-ethereum's
// indexer, when Close interrupts its first run before it has indexed a block,
// writes an index tail of head+1, and the next start takes that for a broken
// index, purges every lookup entry and rebuilds them in the background
// (observed here in about 1 run in 20 under -race). assertTransitionState
// therefore waits for TxIndexDone before looking a transaction up.
func TestImportSurvivesRestart(t *testing.T) {
	tc := getTransition(t)
	dir := t.TempDir()
	c := openTransition(t, dir)
	if _, err := c.Import(context.Background(), writeFile(t, "geth.rlp", tc.gethFile)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	for _, genesis := range []*core.Genesis{transitionGenesis(), nil} {
		c, err := Open(Config{DataDir: dir, Genesis: genesis})
		if err != nil {
			t.Fatalf("reopen (genesis given: %v): %v", genesis != nil, err)
		}
		assertHead(t, c, tc.gethHead)
		assertTransitionState(t, c)
		if fin := c.BlockChain().CurrentFinalBlock(); fin == nil || fin.Hash() != tc.gethHead.Hash() {
			t.Errorf("finalized block after reopen: %v, want the head", fin)
		}
		if c.Rules().MinBaseFee != nil {
			t.Errorf("rules after reopen: min base fee %v, want none", c.Rules().MinBaseFee)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// withBadRoot returns blocks with block number bad's state root changed and
// the later blocks re-linked to it, so the file is a well-formed chain whose
// only fault is that root.
func withBadRoot(blocks []*types.Block, bad uint64) []*types.Block {
	out := make([]*types.Block, len(blocks))
	copy(out, blocks)
	for i := int(bad - 1); i < len(out); i++ {
		h := types.CopyHeader(out[i].Header())
		if h.Number.Uint64() == bad {
			h.Root = common.HexToHash("0xbad")
		} else {
			h.ParentHash = out[i-1].Hash()
		}
		out[i] = out[i].WithSeal(h)
	}
	return out
}

// (d): a corrupted file is rejected and the head stays on the good chain, at
// or before the last good block.
func TestImportRejectsCorruptFiles(t *testing.T) {
	tc := getTransition(t)
	last := uint64(tcBlocks)
	cases := []struct {
		name string
		data func(t *testing.T) []byte
		// wantHead is the exact head after the failed import, or -1 when
		// any block on the good chain before maxHead is acceptable.
		wantHead int
		maxHead  uint64
		errText  string
	}{
		{
			name:     "bad state root in the last block",
			data:     func(t *testing.T) []byte { return encodeBlocks(t, withBadRoot(tc.blocks, last)...) },
			wantHead: int(last - 1),
			errText:  "invalid merkle root",
		},
		{
			name:     "bad state root in a middle block",
			data:     func(t *testing.T) []byte { return encodeBlocks(t, withBadRoot(tc.blocks, tcBlobBlock)...) },
			wantHead: tcBlobBlock - 1,
			errText:  "invalid merkle root",
		},
		{
			name: "truncated file",
			data: func(t *testing.T) []byte {
				return tc.gethFile[:len(tc.gethFile)-10]
			},
			wantHead: -1,
			maxHead:  last - 1,
			errText:  "decode chain file",
		},
		{
			name: "garbage after the last block",
			data: func(t *testing.T) []byte {
				return append(bytes.Clone(tc.gethFile), 0xc3, 0x01, 0x02)
			},
			wantHead: -1,
			maxHead:  last,
			errText:  "decode chain file",
		},
		{
			name: "unlinked block",
			data: func(t *testing.T) []byte {
				blocks := append([]*types.Block{}, tc.blocks[:5]...)
				return encodeBlocks(t, append(blocks, tc.blocks[6:]...)...)
			},
			wantHead: -1,
			maxHead:  5,
			errText:  "non contiguous",
		},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			c := openTransition(t, t.TempDir())
			defer c.Close()
			_, err := c.Import(context.Background(), writeFile(t, "bad.rlp", tt.data(t)))
			if err == nil {
				t.Fatal("corrupt file imported without error")
			}
			if !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("error %q does not mention %q", err, tt.errText)
			}
			head := c.Head()
			t.Logf("error: %v; head #%d", err, head.Number)
			n := head.Number.Uint64()
			if tt.wantHead >= 0 && n != uint64(tt.wantHead) {
				t.Fatalf("head #%d after the failed import, want #%d (the last good block)", n, tt.wantHead)
			}
			if tt.wantHead < 0 && n > tt.maxHead {
				t.Fatalf("head #%d after the failed import, want at most #%d", n, tt.maxHead)
			}
			if n > 0 && head.Hash() != tc.blocks[n-1].Hash() {
				t.Fatalf("head #%d %s is not on the good chain", n, head.Hash())
			}
			// The good file still imports on top of whatever was kept.
			if _, err := c.Import(context.Background(), writeFile(t, "good.rlp", tc.gethFile)); err != nil {
				t.Fatalf("good file after the bad one: %v", err)
			}
			assertHead(t, c, tc.gethHead)
		})
	}
}

// Geth itself imports stocknode's export to the same head, and stops at the
// same block on a corrupt file. Set STOCKNODE_GETH to a geth binary (e.g.
// v1.16.7) to run it; STOCKNODE_GETH_DIR keeps the files in that directory.
func TestGethBinaryImportsExport(t *testing.T) {
	gethBin := os.Getenv("STOCKNODE_GETH")
	if gethBin == "" {
		t.Skip("STOCKNODE_GETH not set")
	}
	tc := getTransition(t)
	dir := os.Getenv("STOCKNODE_GETH_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, gethBin, "version").CombinedOutput(); err == nil {
		t.Logf("%s", bytes.TrimSpace(out))
	}

	// stocknode: import geth's in-process export, then export it again.
	c := openTransition(t, filepath.Join(dir, "stocknode"))
	imported, err := c.Import(context.Background(), writeFile(t, "geth.rlp", tc.gethFile))
	if err != nil {
		t.Fatal(err)
	}
	chainFile := filepath.Join(dir, "chain.rlp")
	if _, err := c.Export(chainFile); err != nil {
		t.Fatal(err)
	}
	c.Close()
	badFile := filepath.Join(dir, "bad.rlp")
	if err := os.WriteFile(badFile, encodeBlocks(t, withBadRoot(tc.blocks, tcBlobBlock)...), 0o644); err != nil {
		t.Fatal(err)
	}
	genesisJSON, err := json.MarshalIndent(transitionGenesis(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	genesisFile := filepath.Join(dir, "genesis.json")
	if err := os.WriteFile(genesisFile, genesisJSON, 0o644); err != nil {
		t.Fatal(err)
	}

	genesisHash := transitionGenesis().ToBlock().Hash()
	t.Logf("genesis: %s", genesisHash)
	geth := func(datadir string, args ...string) ([]byte, error) {
		args = append([]string{"--datadir", datadir}, args...)
		out, err := exec.CommandContext(ctx, gethBin, args...).CombinedOutput()
		t.Logf("geth %s: exit %v", strings.Join(args, " "), err)
		return out, err
	}
	mustGeth := func(datadir string, args ...string) {
		t.Helper()
		if out, err := geth(datadir, args...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	// gethHead exports geth's chain and returns its head, checking that every
	// block is the generated one.
	gethHead := func(datadir, exported string) (*types.Header, []byte) {
		t.Helper()
		mustGeth(datadir, "export", exported)
		data, err := os.ReadFile(exported)
		if err != nil {
			t.Fatal(err)
		}
		stream := rlp.NewStream(bytes.NewReader(data), 0)
		var head *types.Header
		for {
			var record exportBlock
			if err := stream.Decode(&record); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("decode geth's export: %v", err)
			}
			want := genesisHash
			if n := record.Header.Number.Uint64(); n > 0 {
				want = tc.blocks[n-1].Hash()
			}
			if record.Header.Hash() != want {
				t.Errorf("geth's block %d is %s, want %s", record.Header.Number, record.Header.Hash(), want)
			}
			head = record.Header
		}
		if head == nil {
			t.Fatal("geth exported nothing")
		}
		return head, data
	}

	good := filepath.Join(dir, "geth")
	mustGeth(good, "init", genesisFile)
	mustGeth(good, "import", chainFile)
	head, reexport := gethHead(good, filepath.Join(dir, "geth-export.rlp"))
	t.Logf("stocknode import head: #%d %s root %s", imported.Number, imported.Hash(), imported.Root)
	t.Logf("geth binary head:      #%d %s root %s", head.Number, head.Hash(), head.Root)
	if head.Hash() != imported.Hash() || head.Root != imported.Root {
		t.Fatalf("geth's head #%d %s differs from stocknode's #%d %s", head.Number, head.Hash(), imported.Number, imported.Hash())
	}
	ours, err := os.ReadFile(chainFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, reexport) {
		t.Errorf("geth's re-export differs from stocknode's export (%d vs %d bytes)", len(reexport), len(ours))
	}

	// The corrupt file: geth fails on the same block and keeps the one before.
	bad := filepath.Join(dir, "geth-bad")
	mustGeth(bad, "init", genesisFile)
	out, err := geth(bad, "import", badFile)
	if err == nil {
		t.Fatalf("geth imported the corrupt file without error:\n%s", out)
	}
	if !bytes.Contains(out, []byte("invalid merkle root")) {
		t.Errorf("geth's import error does not mention the merkle root:\n%s", out)
	}
	badHead, _ := gethHead(bad, filepath.Join(dir, "geth-bad-export.rlp"))
	t.Logf("geth binary head after the corrupt file: #%d %s", badHead.Number, badHead.Hash())
	if badHead.Number.Uint64() != tcBlobBlock-1 {
		t.Errorf("geth kept #%d of the corrupt file, stocknode keeps #%d", badHead.Number, tcBlobBlock-1)
	}
}
