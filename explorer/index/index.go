// Package index is the explorer's address index: for every address, the
// transactions it sent or received and the ERC-20 token transfers it took
// part in, newest first, and for every token the addresses that ever held
// it. It lives in a pebble database of its own, is written as blocks seal
// (one atomic batch per block, so a crash resumes at the last whole block)
// and catches up with the chain on start, which also indexes imported chains.
package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/vfs"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/internal/pebblelog"
	"github.com/stocknode/stocknode/node/chain"
)

// Tx is one transaction in an address's history.
type Tx struct {
	Block uint64
	Index uint32 // position in the block
	Time  uint64 // the block's timestamp
	Hash  common.Hash
	From  common.Address
	// To is nil for a contract creation; Created is then the new contract.
	To      *common.Address
	Created common.Address
	Value   *big.Int
	Status  uint8 // the receipt's status: 1 success, 0 failure
	GasUsed uint64

	// What an Etherscan answer shows besides, so that a page of history
	// reads no block.
	Nonce    uint64
	Gas      uint64   // the gas limit
	GasPrice *big.Int // the effective price per gas paid
	// CumulativeGasUsed is the block's gas used up to and with this
	// transaction.
	CumulativeGasUsed uint64
	// InputLen is the length of the input; Selector holds its first bytes
	// (at most four). Index.Input reads the whole input.
	InputLen uint32
	Selector [4]byte
}

// Transfer is one ERC-20 Transfer log (three topics, a 32-byte amount) in
// an address's history, sent or received.
type Transfer struct {
	Block    uint64
	TxIndex  uint32
	LogIndex uint32 // the log's index in the block
	Time     uint64
	TxHash   common.Hash
	Token    common.Address
	From, To common.Address
	Value    *big.Int

	// The transaction's, as Etherscan's token transfers show them.
	Nonce             uint64
	Gas               uint64
	GasPrice          *big.Int // effective
	GasUsed           uint64
	CumulativeGasUsed uint64
}

// Cursor is a position in a history, newest first: a page starts strictly
// older than its cursor. The zero Cursor starts at the newest entry.
type Cursor struct {
	Block uint64
	Index uint32 // transaction index
	Log   uint32 // log index (transfers only)
}

// IsZero reports whether c starts at the newest entry.
func (c Cursor) IsZero() bool { return c == Cursor{} }

// Counts are the sizes of an address's histories.
type Counts struct {
	Txs       uint64 // transactions sent, received or creating it
	Transfers uint64 // token transfers sent or received
	// TokenTransfers counts the transfers of the token at the address:
	// the ERC-20 Transfer logs it emitted.
	TokenTransfers uint64
}

// Config says where the index lives.
type Config struct {
	// Dir holds the database; ignored when InMemory is set.
	Dir string
	// InMemory keeps the index in memory (--dev): rebuilt at every start.
	InMemory bool
	// CacheMB is the block cache's size; 0 means DefaultCacheMB.
	CacheMB int
}

// DatabaseHandles bounds the files the index keeps open (the node counts
// them in its file-descriptor budget).
const DatabaseHandles = 256

// DefaultCacheMB is the block cache's size unless configured.
const DefaultCacheMB = 64

func (c Config) validate() error {
	switch {
	case c.CacheMB < 0:
		return fmt.Errorf("address index: cache size %d MB is negative", c.CacheMB)
	case !c.InMemory && c.Dir == "":
		return errors.New("address index: no directory given")
	}
	return nil
}

// Index is the address index. Reads are safe for concurrent use with each
// other and with Run, which is the only writer.
type Index struct {
	db     *pebble.DB
	src    source
	config *params.ChainConfig
	log    *slog.Logger

	wake   chan struct{}
	sealed atomic.Pointer[types.Block] // the newest block Sealed reported
	next   atomic.Uint64               // the next block to index

	// marker is the last indexed block. Only the writer (Open, then Run)
	// touches it.
	marker marker

	// mu makes Close wait for the reads and the write in flight; pebble
	// panics on a closed database, a read after Close gets ErrClosed.
	mu     sync.RWMutex
	closed bool
}

// ErrClosed is a read of a closed index.
var ErrClosed = errors.New("address index closed")

// acquire holds off Close until release; it fails once the index is closed.
func (x *Index) acquire() error {
	x.mu.RLock()
	if x.closed {
		x.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (x *Index) release() { x.mu.RUnlock() }

// marker is the last indexed block, as stored under markerKey.
type marker struct {
	number uint64
	hash   common.Hash
	ok     bool // false: nothing indexed yet
}

// formatVersion changes with the key or value layout; an index in another
// format is rebuilt. 2: the transfers of each token ('e') and their count.
const formatVersion = 2

// Open opens (creating if needed) the index of c's chain. When the index on
// disk was built from another chain, or in another format, it is emptied:
// Run rebuilds it.
func Open(cfg Config, c *chain.Chain, log *slog.Logger) (*Index, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	var fs vfs.FS
	if cfg.InMemory {
		fs = vfs.NewMem()
	}
	return open(cfg, fs, c.BlockChain(), log)
}

// open opens the index of src's chain on fs (nil: the disk).
func open(cfg Config, fs vfs.FS, src source, log *slog.Logger) (*Index, error) {
	cacheMB := cfg.CacheMB
	if cacheMB == 0 {
		cacheMB = DefaultCacheMB
	}
	cache := pebble.NewCache(int64(cacheMB) << 20)
	defer cache.Unref() // the database holds its own reference
	opts := &pebble.Options{
		FS:                 fs,
		Cache:              cache,
		MaxOpenFiles:       DatabaseHandles,
		FormatMajorVersion: pebble.FormatNewest,
		// Bloom filters make the Gets of a block's counts cheap for
		// addresses seen for the first time.
		Levels: []pebble.LevelOptions{{FilterPolicy: bloom.FilterPolicy(10)}},
		Logger: pebblelog.New(log, "address index"),
	}
	dir := cfg.Dir
	if fs != nil {
		dir = ""
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open address index %s: %w", dir, err)
	}
	x := &Index{db: db, src: src, config: src.Config(), log: log, wake: make(chan struct{}, 1)}
	if err := x.load(); err != nil {
		db.Close()
		return nil, err
	}
	return x, nil
}

// load reads the marker and empties an index that does not belong to the
// chain.
func (x *Index) load() error {
	m, version, err := readMarker(x.db)
	if err != nil {
		return err
	}
	switch {
	case !m.ok:
		return nil
	case version != formatVersion:
		return x.reset("the index is in another format", "format", version, "want", formatVersion)
	case x.src.GetCanonicalHash(m.number) != m.hash:
		return x.reset("the index was built from another chain", "number", m.number, "hash", m.hash)
	}
	x.marker = m
	x.next.Store(m.number + 1)
	return nil
}

func readMarker(db pebble.Reader) (m marker, version byte, err error) {
	v, closer, err := db.Get(markerKey)
	if errors.Is(err, pebble.ErrNotFound) {
		return marker{}, 0, nil
	}
	if err != nil {
		return marker{}, 0, fmt.Errorf("read address index marker: %w", err)
	}
	defer closer.Close()
	if len(v) != 1+8+common.HashLength {
		return marker{}, 0, fmt.Errorf("address index marker: %w", errCorrupt)
	}
	m = marker{number: binary.BigEndian.Uint64(v[1:]), hash: common.BytesToHash(v[9:]), ok: true}
	return m, v[0], nil
}

func appendMarker(dst []byte, number uint64, hash common.Hash) []byte {
	dst = append(dst, formatVersion)
	dst = binary.BigEndian.AppendUint64(dst, number)
	return append(dst, hash[:]...)
}

// reset empties the index, which Run then rebuilds from the genesis.
func (x *Index) reset(why string, attrs ...any) error {
	if err := x.acquire(); err != nil {
		return err
	}
	defer x.release()
	x.log.Warn("Rebuilding the address index: "+why, attrs...)
	// Every key starts with a table byte below 0xff.
	if err := x.db.DeleteRange([]byte{0}, []byte{0xff}, pebble.NoSync); err != nil {
		return fmt.Errorf("empty address index: %w", err)
	}
	x.marker = marker{}
	x.next.Store(0)
	return nil
}

// Progress reports the last indexed block and the chain's head: pages say
// "indexing 1234/5000" while the index catches up.
func (x *Index) Progress() (indexed, head uint64) {
	if next := x.next.Load(); next > 0 {
		indexed = next - 1
	}
	return indexed, x.src.CurrentBlock().Number.Uint64()
}

// Close closes the database, after the reads in flight; reads after it get
// ErrClosed. Stop Run first: its writes fail too.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil
	}
	x.closed = true
	if err := x.db.Close(); err != nil {
		return fmt.Errorf("close address index: %w", err)
	}
	return nil
}
