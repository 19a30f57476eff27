package chain

import (
	"bufio"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
)

// sink receives one wei in every block of recentChain, so its balance at
// block n is n: each state is told apart by one read.
var sink = common.HexToAddress("0xdead")

// recentChain is the preview genesis moved to genesisTime and n blocks on
// it, one second apart, each with a one-wei transfer to sink. The path
// database indexes its state history only once the head is recent (geth's
// "synced"), hence a genesis near the wall clock rather than the fixed one.
func recentChain(t *testing.T, genesisTime uint64, n int) (*core.Genesis, []*types.Block) {
	t.Helper()
	genesis := previewGenesis(t, defaultFaucet(t))
	genesis.Timestamp = genesisTime
	keys, err := DevKeys(1)
	if err != nil {
		t.Fatal(err)
	}
	from := devAddress(t, 0)
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), n, func(i int, b *core.BlockGen) {
		b.OffsetTime(-9) // one second after the parent, not ten
		b.AddTx(types.MustSignNewTx(keys[0], b.Signer(), &types.DynamicFeeTx{
			ChainID: big.NewInt(PreviewChainID), Nonce: b.TxNonce(from), GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &sink, Value: big.NewInt(1),
		}))
	})
	return genesis, blocks
}

func devAddress(t *testing.T, i int) common.Address {
	t.Helper()
	keys, err := DevKeys(i + 1)
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(keys[i].PublicKey)
}

// sinkBalanceAt reads sink's balance in the state after block h.
func sinkBalanceAt(c *Chain, h *types.Header) (uint64, error) {
	r, err := c.StateReaderAt(h)
	if err != nil {
		return 0, err
	}
	acct, err := r.Account(sink)
	if err != nil {
		return 0, err
	}
	if acct == nil {
		return 0, nil
	}
	return acct.Balance.Uint64(), nil
}

func appendAll(t *testing.T, c *Chain, blocks []*types.Block) {
	t.Helper()
	for _, b := range blocks {
		if err := c.Append(b); err != nil {
			t.Fatal(err)
		}
	}
}

// A datadir keeps the gc mode it was created with: an empty mode opens it in
// that mode, the other mode is refused with a message that says what the
// datadir holds and what to do.
func TestGCModeOfExistingDatadir(t *testing.T) {
	for _, tt := range []struct {
		created, then GCMode
		want          GCMode // "" when the open must fail
		mentions      []string
	}{
		{created: "", then: "", want: DefaultGCMode},
		{created: GCArchive, then: GCArchive, want: GCArchive},
		{created: GCArchive, then: "", want: GCArchive},
		{created: GCFull, then: GCFull, want: GCFull},
		{created: GCFull, then: "", want: GCFull},
		{created: GCArchive, then: GCFull, mentions: []string{"archive-mode chain", "--gcmode archive", "stocknode export", "import"}},
		{created: GCFull, then: GCArchive, mentions: []string{"full-mode chain", "pruned", "--gcmode full", "stocknode export"}},
	} {
		t.Run(fmt.Sprintf("%s_then_%s", or(tt.created, "new"), or(tt.then, "unset")), func(t *testing.T) {
			dir := t.TempDir()
			genesis := previewGenesis(t, defaultFaucet(t))
			c, err := Open(Config{DataDir: dir, Genesis: genesis, GCMode: tt.created})
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			c, err = Open(Config{DataDir: dir, GCMode: tt.then})
			if tt.want == "" {
				var mismatch *ModeMismatchError
				if !errors.As(err, &mismatch) {
					if err == nil {
						c.Close()
					}
					t.Fatalf("open with --gcmode %s: %v, want a ModeMismatchError", tt.then, err)
				}
				t.Logf("error: %v", err)
				for _, want := range append(tt.mentions, dir) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error does not mention %q", want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.GCMode() != tt.want {
				t.Fatalf("opened in %s, want %s", c.GCMode(), tt.want)
			}
		})
	}
}

func or(m GCMode, s string) string {
	if m == "" {
		return s
	}
	return string(m)
}

// In full mode the states of recent blocks stay readable (the newest 128
// from memory, older ones within the window from the state history) and
// older ones fail with ErrStatePruned; the persisted state trails the head
// by at most the 128 in-memory states and the one being written. In archive
// mode every state stays readable.
func TestStatesKeptByGCMode(t *testing.T) {
	const blocks, window = 320, 16
	for _, mode := range []GCMode{GCFull, GCArchive} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			genesis, chain := recentChain(t, uint64(time.Now().Unix())-3600, blocks)
			c, err := Open(Config{DataDir: dir, Genesis: genesis, GCMode: mode, StateHistory: window})
			if err != nil {
				t.Fatal(err)
			}
			appendAll(t, c, chain)
			if mode == GCFull {
				if lag, err := unpersisted(c.db); err != nil || len(lag) > 129 {
					t.Fatalf("persisted state trails the head by %d blocks (err %v), want at most 129", len(lag), err)
				}
			}
			c.Close()
			// Reopened: the in-memory states come back from the journal,
			// and the state history gets indexed (the head is recent).
			c, err = Open(Config{DataDir: dir, GCMode: mode, StateHistory: window})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if r := c.Recovery(); r.Replayed != 0 {
				t.Errorf("clean reopen replayed %d blocks", r.Replayed)
			}
			bc := c.BlockChain()
			for _, n := range []uint64{blocks, blocks - 5, blocks - 127} {
				checkSink(t, c, bc.GetHeaderByNumber(n))
			}
			// Below the in-memory states: from the state history, once the
			// background indexer has caught up.
			historic := bc.GetHeaderByNumber(blocks - 128 - window/2)
			deadline := time.Now().Add(time.Minute)
			for {
				_, err := sinkBalanceAt(c, historic)
				if err == nil || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			checkSink(t, c, historic)

			old := bc.GetHeaderByNumber(blocks - 128 - 2*window)
			got, err := sinkBalanceAt(c, old)
			if mode == GCArchive {
				if err != nil || got != old.Number.Uint64() {
					t.Fatalf("archive: block %d: balance %d, %v", old.Number, got, err)
				}
				return
			}
			if !errors.Is(err, ErrStatePruned) {
				t.Fatalf("full: state of block %d beyond the window: %v, want ErrStatePruned", old.Number, err)
			}
			t.Logf("pruned: %v", err)
			for _, want := range []string{fmt.Sprintf("block %d", old.Number), "--gcmode archive"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func checkSink(t *testing.T, c *Chain, h *types.Header) {
	t.Helper()
	got, err := sinkBalanceAt(c, h)
	if err != nil || got != h.Number.Uint64() {
		t.Fatalf("state of block %d: sink balance %d, %v; want %d", h.Number, got, err, h.Number)
	}
}

// The crash child's environment: it appends the blocks of recentChain to
// the datadir and reports each, until it is killed.
const (
	crashDirEnv  = "STOCKNODE_CRASH_DIR"
	crashModeEnv = "STOCKNODE_CRASH_MODE"
	crashTimeEnv = "STOCKNODE_CRASH_GENESIS_TIME"
	// crashBlocksEnv is how many blocks the child appends.
	crashBlocksEnv = "STOCKNODE_CRASH_BLOCKS"
)

func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("run by TestKill9WhileAppending")
	}
	genesisTime, err := strconv.ParseUint(os.Getenv(crashTimeEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(os.Getenv(crashBlocksEnv))
	if err != nil {
		t.Fatal(err)
	}
	genesis, blocks := recentChain(t, genesisTime, n)
	c, err := Open(Config{DataDir: dir, Genesis: genesis, GCMode: GCMode(os.Getenv(crashModeEnv)), StateHistory: DefaultStateHistory})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("opened")
	for _, b := range blocks {
		if err := c.Append(b); err != nil {
			t.Fatal(err)
		}
		// Announced only once Append returned, as the sequencer does.
		fmt.Printf("appended %d\n", b.NumberU64())
	}
	select {} // until killed
}

const crashChainLength = 400

// Killed with -9 while appending, the chain reopens at or above the last
// block it announced, with that block's state: in full mode by replaying
// the blocks above the persisted state, which trails the head.
func TestKill9WhileAppending(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	for _, tt := range []struct {
		mode   GCMode
		replay bool
	}{
		{GCFull, true},
		{GCArchive, false},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			dir := t.TempDir()
			genesisTime := uint64(time.Now().Unix()) - 3600
			announced := crashWhileAppending(t, dir, tt.mode, genesisTime, 250)

			genesis, blocks := recentChain(t, genesisTime, crashChainLength)
			c, err := Open(Config{DataDir: dir, Genesis: genesis, CheckGenesis: true, GCMode: tt.mode, StateHistory: DefaultStateHistory})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			head := c.Head()
			rec := c.Recovery()
			t.Logf("announced %d, reopened at %d, replayed %d blocks from %d in %v", announced, head.Number, rec.Replayed, rec.From, rec.Took)
			if n := head.Number.Uint64(); n < announced || head.Hash() != blocks[n-1].Hash() {
				t.Fatalf("reopened at %d %s, want the chain's block at or above %d", n, head.Hash(), announced)
			}
			if tt.replay != (rec.Replayed > 0) {
				t.Fatalf("replayed %d blocks", rec.Replayed)
			}
			if tt.replay && (rec.Replayed > 130 || rec.From+uint64(rec.Replayed) != head.Number.Uint64()+1) {
				t.Fatalf("replayed %d blocks from %d up to head %d, want at most 130 up to the head", rec.Replayed, rec.From, head.Number)
			}
			checkSink(t, c, head)
			if f := c.BlockChain().CurrentFinalBlock(); f == nil || f.Hash() != head.Hash() {
				t.Fatal("the head is not finalized after the replay")
			}
			if _, err := os.Stat(dir + "/chaindata/" + replayFile); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("replay file left behind: %v", err)
			}
			// The chain goes on from there.
			next := blocks[head.Number.Uint64()]
			if err := c.Append(next); err != nil {
				t.Fatal(err)
			}
			checkSink(t, c, next.Header())
		})
	}
}

// A node killed right after it created its chain reopens it, though
// nothing core writes is synced and pebble holds unsynced writes in memory.
func TestKill9AfterCreatingTheChain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	for _, mode := range []GCMode{GCFull, GCArchive} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			genesisTime := uint64(time.Now().Unix()) - 3600
			crashWhileAppending(t, dir, mode, genesisTime, 0)

			genesis, _ := recentChain(t, genesisTime, 0)
			c, err := Open(Config{DataDir: dir, Genesis: genesis, CheckGenesis: true, GCMode: mode, StateHistory: DefaultStateHistory})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if head := c.Head(); head.Number.Sign() != 0 || head.Hash() != genesis.ToBlock().Hash() {
				t.Fatalf("reopened at %d %s, want the genesis", head.Number, head.Hash())
			}
			if _, err := c.StateReaderAt(c.Head()); err != nil {
				t.Fatalf("the genesis state: %v", err)
			}
		})
	}
}

// crashWhileAppending runs the crash child on dir until it announced at
// least n blocks (with n 0, until it opened the chain), kills it with
// SIGKILL and returns the last block it announced.
func crashWhileAppending(t *testing.T, dir string, mode GCMode, genesisTime uint64, n uint64) uint64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	blocks := crashChainLength
	if n == 0 {
		blocks = 0
	}
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashModeEnv+"="+string(mode),
		fmt.Sprintf("%s=%d", crashTimeEnv, genesisTime), fmt.Sprintf("%s=%d", crashBlocksEnv, blocks))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var announced uint64
	scanner := bufio.NewScanner(out)
	opened := false
	for (!opened || announced < n) && scanner.Scan() {
		opened = opened || scanner.Text() == "opened"
		if num, ok := strings.CutPrefix(scanner.Text(), "appended "); ok {
			if announced, err = strconv.ParseUint(num, 10, 64); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if !opened || announced < n {
		t.Fatalf("child announced %d blocks before it ended; stderr:\n%s", announced, stderr.String())
	}
	return announced
}

// go-ethereum's repair on open rewinds a full node's head to its persisted
// state and, once the chain freezer has moved the blocks above it to the
// ancient store (it freezes up to the finalized block, and stocknode
// finalizes every block), deletes them. Open saves them first and replays
// them, and a replay interrupted by another crash resumes from the saved
// file.
func TestReplaySurvivesRepairAndInterruption(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	genesisTime := uint64(time.Now().Unix()) - 3600
	crashed := t.TempDir()
	announced := crashWhileAppending(t, crashed, GCFull, genesisTime, 250)
	freezeUpTo(t, crashed, announced)
	_, blocks := recentChain(t, genesisTime, crashChainLength)

	t.Run("without the saved blocks", func(t *testing.T) {
		dir := copyDatadir(t, crashed)
		bc, db := openBlockChain(t, dir)
		defer db.Close()
		defer bc.Stop()
		if head := bc.CurrentBlock().Number.Uint64(); head >= announced {
			t.Fatalf("go-ethereum's repair kept the head at %d, announced %d: nothing to replay", head, announced)
		}
		if bc.GetBlockByNumber(announced) != nil {
			t.Fatalf("go-ethereum's repair kept block %d above the persisted state", announced)
		}
	})
	t.Run("replayed", func(t *testing.T) {
		c, err := Open(Config{DataDir: copyDatadir(t, crashed), StateHistory: DefaultStateHistory})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		checkRecovered(t, c, blocks, announced)
	})
	t.Run("replay interrupted", func(t *testing.T) {
		dir := copyDatadir(t, crashed)
		// The first recovery saves the blocks, go-ethereum repairs, and only
		// ten blocks are replayed before the process dies.
		if err := saveUnpersistedAt(t, dir); err != nil {
			t.Fatal(err)
		}
		bc, db := openBlockChain(t, dir)
		head := bc.CurrentBlock().Number.Uint64()
		if _, err := bc.InsertChain(blocks[head : head+10]); err != nil {
			t.Fatal(err)
		}
		bc.Stop()
		db.Close()

		c, err := Open(Config{DataDir: dir, StateHistory: DefaultStateHistory})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		checkRecovered(t, c, blocks, announced)
	})
}

func checkRecovered(t *testing.T, c *Chain, blocks []*types.Block, announced uint64) {
	t.Helper()
	head, rec := c.Head(), c.Recovery()
	t.Logf("reopened at %d (announced %d), replayed %d blocks from %d", head.Number, announced, rec.Replayed, rec.From)
	if n := head.Number.Uint64(); n < announced || head.Hash() != blocks[n-1].Hash() {
		t.Fatalf("reopened at %d %s, want the chain's block at or above %d", n, head.Hash(), announced)
	}
	if rec.Replayed == 0 {
		t.Fatal("nothing replayed")
	}
	checkSink(t, c, head)
}

// freezeUpTo opens dir's database until its chain freezer has moved the
// blocks up to number to the ancient store, as a node that ran a while has.
func freezeUpTo(t *testing.T, dir string, number uint64) {
	t.Helper()
	_, db, err := openDatabase(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if frozen, _ := db.Ancients(); frozen > number {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocks up to %d not frozen", number)
		}
	}
}

// openBlockChain opens dir as Open would, without saving or replaying the
// blocks above the persisted state.
func openBlockChain(t *testing.T, dir string) (*core.BlockChain, ethdb.Database) {
	t.Helper()
	_, db, err := openDatabase(Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := core.NewBlockChain(db, nil, NewEngine(nil), blockChainConfig(Config{DataDir: dir, StateHistory: DefaultStateHistory}, GCFull))
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return bc, db
}

func saveUnpersistedAt(t *testing.T, dir string) error {
	t.Helper()
	_, db, err := openDatabase(Config{DataDir: dir})
	if err != nil {
		return err
	}
	defer db.Close()
	return saveUnpersisted(db, filepath.Join(dir, "chaindata", replayFile))
}

func copyDatadir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "datadir")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}
