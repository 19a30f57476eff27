// Package chain owns stocknode's chain: go-ethereum's core.BlockChain on a
// pebble database, the genesis presets, the consensus engine and RLP
// import/export.
package chain

import (
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
)

// Config says where the chain lives and which chain it is.
type Config struct {
	// DataDir holds the database; ignored when InMemory is set.
	DataDir string
	// InMemory keeps everything in memory (--dev): a fresh chain every start.
	InMemory bool
	// Genesis is the chain to create when the database is empty.
	Genesis *core.Genesis
	// CheckGenesis requires a database that already holds a chain to hold
	// this one (the operator named the genesis explicitly).
	CheckGenesis bool
	// Rules are stocknode's additions to the geth chain config, written with
	// the genesis; the stored ones win on a database that has them.
	Rules Rules
	// CacheMB is the database cache size.
	CacheMB int
	// GCMode is which states to keep: a new database gets it (empty: the
	// DefaultGCMode), an existing one must have been created with it (empty:
	// whichever it was created with).
	GCMode GCMode
	// StateHistory is, in full mode, the number of recent blocks whose
	// states stay readable from reverse state diffs (geth's
	// --history.state; 0 keeps them all).
	StateHistory uint64
}

// Chain is an open chain database with its blockchain and engine.
type Chain struct {
	db      ethdb.Database
	kv      ethdb.KeyValueStore
	bc      *core.BlockChain
	engine  *Engine
	rules   Rules
	stateDB state.Database

	mode         GCMode
	stateHistory uint64
	historic     state.Database // full mode: states below the in-memory ones, from the state history
	recovery     Recovery
}

// Recovery is what Open did to bring the head state back after an unclean
// shutdown.
type Recovery struct {
	// Replayed is the number of blocks re-executed onto the persisted state.
	Replayed int
	// From is the first of them.
	From uint64
	// Took is the time the replay took.
	Took time.Duration
}

// Open opens (creating if needed) the chain described by cfg.
//
// Every sealed block survives a kill -9 in both modes. In archive mode the
// state is committed to disk at every block (hash scheme). In full mode
// (path scheme) the state on disk trails the head by the 128 states kept
// in memory; Open replays the blocks above it, which the database keeps
// until then (see saveUnpersisted).
func Open(cfg Config) (*Chain, error) {
	kv, db, err := openDatabase(cfg)
	if err != nil {
		return nil, err
	}
	c, err := open(cfg, kv, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return c, nil
}

// DatabaseHandles is how many files the database keeps open at most.
const DatabaseHandles = 512

func openDatabase(cfg Config) (ethdb.KeyValueStore, ethdb.Database, error) {
	if cfg.InMemory {
		// With an in-memory freezer rather than none: the path scheme keeps
		// its state history there.
		kv := memorydb.New()
		db, err := rawdb.Open(kv, rawdb.OpenOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("open in-memory database: %w", err)
		}
		return kv, db, nil
	}
	if cfg.CacheMB == 0 {
		cfg.CacheMB = 256
	}
	dir := filepath.Join(cfg.DataDir, "chaindata")
	kv, err := pebble.New(dir, cfg.CacheMB, DatabaseHandles, "", false)
	if err != nil {
		return nil, nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	db, err := rawdb.Open(kv, rawdb.OpenOptions{Ancient: filepath.Join(dir, "ancient")})
	if err != nil {
		kv.Close()
		return nil, nil, fmt.Errorf("open ancient store: %w", err)
	}
	return kv, db, nil
}

func open(cfg Config, kv ethdb.KeyValueStore, db ethdb.Database) (*Chain, error) {
	mode, err := resolveGCMode(db, cfg.GCMode)
	if err != nil {
		return nil, fmt.Errorf("datadir %s: %w", cfg.DataDir, err)
	}
	genesis, rules, err := resolveGenesis(db, cfg)
	if err != nil {
		return nil, err
	}
	replay := ""
	if mode == GCFull && !cfg.InMemory {
		replay = filepath.Join(cfg.DataDir, "chaindata", replayFile)
		if err := saveUnpersisted(db, replay); err != nil {
			return nil, err
		}
	}
	engine := NewEngine(rules.MinBaseFee)
	if genesis != nil && !cfg.InMemory {
		if err := createChain(db, genesis, engine, blockChainConfig(cfg, mode)); err != nil {
			return nil, err
		}
	}
	bc, err := core.NewBlockChain(db, genesis, engine, blockChainConfig(cfg, mode))
	if err != nil {
		return nil, fmt.Errorf("open blockchain: %w", err)
	}
	c := &Chain{
		db:           db,
		kv:           kv,
		bc:           bc,
		engine:       engine,
		rules:        rules,
		stateDB:      state.NewMPTDatabase(bc.TrieDB(), bc.CodeDB()).WithSnapshot(bc.Snapshots()),
		mode:         mode,
		stateHistory: cfg.StateHistory,
	}
	if mode == GCFull {
		c.historic = state.NewHistoricDatabase(bc.TrieDB(), bc.CodeDB())
	}
	if replay != "" {
		if err := c.replay(replay); err != nil {
			bc.Stop()
			return nil, err
		}
	}
	return c, nil
}

// createChain writes a new chain's genesis block and state, makes them
// durable, and closes the chain again.
//
// Nothing core writes is synced: pebble keeps unsynced writes in its
// write-ahead log's 32 KiB block in memory until the block fills, and the
// path scheme flushes state in the background. A node killed in its first
// seconds would restart with the genesis state but no genesis block (or
// the reverse), which neither core nor the sequencer's log repairs. Later
// blocks need no such care: a restart rewinds them or takes them from the
// log. Only a new chain's first start pays for the second open.
func createChain(db ethdb.Database, genesis *core.Genesis, engine *Engine, config *core.BlockChainConfig) error {
	bc, err := core.NewBlockChain(db, genesis, engine, config.WithNoAsyncFlush(true))
	if err != nil {
		return fmt.Errorf("create the chain: %w", err)
	}
	bc.Stop()
	if err := db.SyncKeyValue(); err != nil {
		return fmt.Errorf("create the chain: sync the database: %w", err)
	}
	return nil
}

// blockChainConfig is go-ethereum's configuration for a chain in mode.
func blockChainConfig(cfg Config, mode GCMode) *core.BlockChainConfig {
	c := core.DefaultConfig().WithStateScheme(mode.scheme())
	c.TxLookupLimit = 0 // index every transaction: eth_getTransactionByHash serves them all
	c.SnapshotWait = false
	// Report blocks that take half of a 200 ms block time to insert.
	c.SlowBlockThreshold = 100 * time.Millisecond
	// In the hash scheme: commit every block's state. In the path scheme:
	// index the state history, which makes the states of the window
	// readable (geth's path-based archive, limited to the window).
	c.ArchiveMode = true
	if mode == GCArchive {
		return c
	}
	c.StateHistory = cfg.StateHistory
	c.TrienodeHistory = -1 // historical trie nodes serve only proofs, which stocknode does not
	// No write buffer under the 128 in-memory states: each state that
	// leaves them is written to disk at once, so the persisted state never
	// trails the head by more than about 130 blocks and neither does the
	// replay after a crash. The buffer would otherwise hold hours of an
	// idle chain's states (it flushes at 256 MB).
	c.TrieDirtyLimit = 0
	if !cfg.InMemory {
		c.TrieJournalDirectory = filepath.Join(cfg.DataDir, "chaindata", "triedb")
	}
	return c
}

// resolveGenesis decides which genesis to hand to core: the configured one
// on an empty database, the stored one otherwise (after checking that the
// configured one, if any, is the same chain).
func resolveGenesis(db ethdb.Database, cfg Config) (*core.Genesis, Rules, error) {
	stored := rawdb.ReadCanonicalHash(db, 0)
	if stored == (common.Hash{}) {
		if cfg.Genesis == nil {
			return nil, Rules{}, errors.New("empty database and no genesis given")
		}
		if err := writeRules(db, cfg.Rules); err != nil {
			return nil, Rules{}, err
		}
		return cfg.Genesis, cfg.Rules, nil
	}
	if cfg.CheckGenesis && cfg.Genesis != nil {
		if want := cfg.Genesis.ToBlock().Hash(); want != stored {
			return nil, Rules{}, fmt.Errorf("database holds the chain with genesis %s, not %s: use another --datadir", stored.Hex(), want.Hex())
		}
	}
	rules, err := readRules(db)
	if err != nil {
		return nil, Rules{}, err
	}
	// nil: core.NewBlockChain loads the stored genesis and chain config.
	return nil, rules, nil
}

// BlockChain is the underlying go-ethereum chain.
func (c *Chain) BlockChain() *core.BlockChain { return c.bc }

// Config is the chain's fork configuration.
func (c *Chain) Config() *params.ChainConfig { return c.bc.Config() }

// Engine is the chain's consensus engine.
func (c *Chain) Engine() *Engine { return c.engine }

// Rules are the chain's stocknode-specific rules.
func (c *Chain) Rules() Rules { return c.rules }

// Head is the current head block's header.
func (c *Chain) Head() *types.Header { return c.bc.CurrentBlock() }

// StateDatabase is the state database that readers build StateDBs on.
func (c *Chain) StateDatabase() state.Database { return c.stateDB }

// GCMode is the mode the chain keeps states in.
func (c *Chain) GCMode() GCMode { return c.mode }

// StateHistory is, in full mode, the number of recent blocks whose states
// stay readable (0: all of them).
func (c *Chain) StateHistory() uint64 { return c.stateHistory }

// Recovery reports what Open replayed after an unclean shutdown.
func (c *Chain) Recovery() Recovery { return c.recovery }

// StateReader returns a reader of the state with the given root; it is safe
// for concurrent use. In full mode, states older than the 128 the path
// database holds in memory are read from the state history.
func (c *Chain) StateReader(root common.Hash) (state.Reader, error) {
	r, err := c.stateDB.Reader(root)
	if err == nil || c.historic == nil {
		return r, err
	}
	r, herr := c.historic.Reader(root)
	if herr != nil {
		return nil, fmt.Errorf("%w (%w)", err, herr)
	}
	return r, nil
}

// StateReaderAt returns a reader of the state after the block with header
// h. A full node no longer has the states of blocks older than its window:
// their error wraps ErrStatePruned.
func (c *Chain) StateReaderAt(h *types.Header) (state.Reader, error) {
	r, err := c.StateReader(h.Root)
	if err == nil {
		return r, nil
	}
	return nil, c.stateError(h.Number.Uint64(), err)
}

// inMemoryStates is the number of recent states the path database holds in
// memory above the persisted one (pathdb's maxDiffLayers).
const inMemoryStates = 128

// stateError says why the state of block number could not be read.
//
// A full node keeps the states of the last StateHistory blocks (in fact
// from StateHistory blocks below its persisted state, which trails the head
// by the in-memory states). Within them, the ones below the in-memory
// states are read through the state history's index, which the path
// database builds in the background: on a new datadir only after about a
// minute, when it takes the chain to be synced.
func (c *Chain) stateError(number uint64, err error) error {
	if c.mode != GCFull {
		return fmt.Errorf("state of block %d: %w", number, err)
	}
	head, window := c.Head().Number.Uint64(), c.stateHistory
	beyond := func(extra uint64) bool { return window > 0 && number+window+extra < head }
	switch indexing := c.indexing(); {
	case beyond(inMemoryStates), beyond(0) && !indexing:
		return fmt.Errorf("block %d: %w (--gcmode full keeps the states of the last %d blocks, --history.state; --gcmode archive keeps every state)",
			number, ErrStatePruned, window)
	case indexing:
		return fmt.Errorf("state of block %d is not readable yet: its state history is still being indexed (on a new datadir, for about a minute)", number)
	}
	return fmt.Errorf("state of block %d: %w", number, err)
}

// indexing reports whether the path database's state history indexer has
// histories left to index.
func (c *Chain) indexing() bool {
	left, _, err := c.bc.TrieDB().IndexProgress()
	return err == nil && left > 0
}

// Append validates block against its parent (headers through the engine,
// then full re-execution with the state root checked), makes it the head,
// marks it safe and finalized (a single sequencer never reorgs) and syncs
// the database, so that the block survives a crash once Append returns.
func (c *Chain) Append(block *types.Block) error {
	// InsertChain would happily reorg; a single sequencer never does.
	if err := c.checkExtendsHead(block); err != nil {
		return err
	}
	if _, err := c.bc.InsertChain(types.Blocks{block}); err != nil {
		return fmt.Errorf("insert block %d: %w", block.NumberU64(), err)
	}
	c.markFinal(block.Header())
	return c.Sync()
}

// Commit makes block, built on the head by this node's sequencer, the new
// head. st is the state the builder executed the block into: it is
// committed as it is, where Append (InsertChain) would execute every
// transaction a second time to validate what this node has just executed
// itself, which measured 60 ms of a 200 ms block under a transaction flood.
// Blocks from elsewhere (import) go through Append.
//
// The order keeps a kill -9 harmless: state, then block and receipts, then
// the head markers, then the fsync; until the head moves, the block is an
// orphan the next run overwrites. In full mode the state reaches the disk
// only when it leaves the path database's 128 in-memory states; the block
// on disk is enough, Open replays it onto the persisted state.
func (c *Chain) Commit(block *types.Block, receipts types.Receipts, st *state.StateDB) error {
	if err := c.checkExtendsHead(block); err != nil {
		return err
	}
	rules := c.Config().Rules(block.Number(), block.Difficulty().Sign() == 0, block.Time())
	root, err := st.Commit(rules, block.NumberU64())
	if err != nil {
		return fmt.Errorf("commit state of block %d: %w", block.NumberU64(), err)
	}
	if root != block.Root() {
		return fmt.Errorf("block %d: committed state root %s, header says %s", block.NumberU64(), root.Hex(), block.Root().Hex())
	}
	// In full mode the path database writes states to disk as they leave
	// the 128 it holds in memory; flushing them all here would make every
	// block a full write of the state diffs and drop the in-memory ones.
	if c.mode == GCArchive {
		if err := c.bc.TrieDB().Commit(root, false); err != nil {
			return fmt.Errorf("flush state of block %d: %w", block.NumberU64(), err)
		}
	}
	batch := c.db.NewBatch()
	defer batch.Close()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), block.NumberU64(), receipts)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	if _, err := c.bc.SetCanonical(block); err != nil {
		return fmt.Errorf("set head to block %d: %w", block.NumberU64(), err)
	}
	c.markFinal(block.Header())
	return c.Sync()
}

func (c *Chain) checkExtendsHead(block *types.Block) error {
	if head := c.bc.CurrentBlock(); block.ParentHash() != head.Hash() {
		return fmt.Errorf("block %d does not extend the head %d %s", block.NumberU64(), head.Number, head.Hash().Hex())
	}
	return nil
}

func (c *Chain) markFinal(head *types.Header) {
	c.bc.SetSafe(head)
	c.bc.SetFinalized(head)
}

// Sync flushes the database's write-ahead log to disk.
func (c *Chain) Sync() error {
	syncer, ok := c.kv.(ethdb.KeyValueSyncer)
	if !ok {
		return nil
	}
	if err := syncer.SyncKeyValue(); err != nil {
		return fmt.Errorf("sync database: %w", err)
	}
	return nil
}

// Close stops the blockchain and closes the database.
func (c *Chain) Close() error {
	// Stopping the transaction indexer before its first pass completes makes
	// go-ethereum purge and rebuild the whole index on the next start; give
	// it a moment to finish.
	deadline := time.Now().Add(time.Second)
	for c.Head().Number.Sign() > 0 && !c.bc.TxIndexDone() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	c.bc.Stop()
	if err := c.db.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// Describe returns log attributes that identify the chain.
func (c *Chain) Describe() []any {
	head := c.Head()
	return []any{
		slog.Uint64("chainID", c.Config().ChainID.Uint64()),
		slog.String("genesis", c.bc.Genesis().Hash().Hex()),
		slog.Uint64("head", head.Number.Uint64()),
		slog.String("hash", head.Hash().Hex()),
		slog.String("gcmode", string(c.mode)),
	}
}

// bigOrNil parses an optional decimal string.
func bigOrNil(s string) (*big.Int, error) {
	if s == "" {
		return nil, nil
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 {
		return nil, fmt.Errorf("invalid non-negative integer %q", s)
	}
	return v, nil
}

// Rewind sets the head back to block number, dropping the blocks above
// it: a sequencer that lost the lead (app's --ha) drops the block it
// committed but could not log, and replays the log's instead.
func (c *Chain) Rewind(number uint64) error {
	if err := c.bc.SetHead(number); err != nil {
		return fmt.Errorf("rewind the chain to block %d: %w", number, err)
	}
	return nil
}
