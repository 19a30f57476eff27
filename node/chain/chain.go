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
}

// Chain is an open chain database with its blockchain and engine.
type Chain struct {
	db      ethdb.Database
	kv      ethdb.KeyValueStore
	bc      *core.BlockChain
	engine  *Engine
	rules   Rules
	stateDB state.Database
}

// Open opens (creating if needed) the chain described by cfg.
//
// State is committed to disk at every block (hash scheme, archive mode):
// with no peers to refill lost in-memory state, that is what makes every
// sealed block survive a kill -9, and it keeps the state of every block
// readable for historical eth_call and eth_getBalance.
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
		db := rawdb.NewMemoryDatabase()
		return db, db, nil
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
	genesis, rules, err := resolveGenesis(db, cfg)
	if err != nil {
		return nil, err
	}
	engine := NewEngine(rules.MinBaseFee)
	bcConfig := core.DefaultConfig().WithArchive(true)
	bcConfig.TxLookupLimit = 0 // index every transaction: eth_getTransactionByHash serves them all
	bcConfig.SnapshotWait = false
	// Report blocks that take half of a 200 ms block time to insert.
	bcConfig.SlowBlockThreshold = 100 * time.Millisecond
	bc, err := core.NewBlockChain(db, genesis, engine, bcConfig)
	if err != nil {
		return nil, fmt.Errorf("open blockchain: %w", err)
	}
	return &Chain{
		db:      db,
		kv:      kv,
		bc:      bc,
		engine:  engine,
		rules:   rules,
		stateDB: state.NewMPTDatabase(bc.TrieDB(), bc.CodeDB()).WithSnapshot(bc.Snapshots()),
	}, nil
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

// StateReader returns a reader of the state with the given root; it is safe
// for concurrent use.
func (c *Chain) StateReader(root common.Hash) (state.Reader, error) {
	return c.stateDB.Reader(root)
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
// orphan the next run overwrites.
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
	if err := c.bc.TrieDB().Commit(root, false); err != nil {
		return fmt.Errorf("flush state of block %d: %w", block.NumberU64(), err)
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
