package chain

import (
	"bytes"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethdb"
)

// slowStateFlush delays the batch that writes the account trie's root
// node, as a loaded disk delays the path scheme's background flush (which
// syncs the state history first).
type slowStateFlush struct{ ethdb.Database }

func (d slowStateFlush) NewBatch() ethdb.Batch {
	return &slowRootBatch{Batch: d.Database.NewBatch()}
}

func (d slowStateFlush) NewBatchWithSize(size int) ethdb.Batch {
	return &slowRootBatch{Batch: d.Database.NewBatchWithSize(size)}
}

type slowRootBatch struct {
	ethdb.Batch
	root bool
}

// accountTrieRootKey is the path scheme's key of the account trie's root.
var accountTrieRootKey = []byte("A")

func (b *slowRootBatch) Put(key, value []byte) error {
	b.root = b.root || bytes.Equal(key, accountTrieRootKey)
	return b.Batch.Put(key, value)
}

func (b *slowRootBatch) Write() error {
	if b.root {
		time.Sleep(300 * time.Millisecond)
	}
	return b.Batch.Write()
}

// A new full-mode chain has its genesis state on disk when Open returns,
// however slow the flush: a node killed right after it started would
// otherwise restart on a genesis block without its state (CI saw it).
func TestNewChainHasItsGenesisStateOnDisk(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), Genesis: previewGenesis(t, defaultFaucet(t)), GCMode: GCFull, StateHistory: DefaultStateHistory}
	kv, db, err := openDatabase(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := open(cfg, kv, slowStateFlush{db})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	defer c.Close()
	if got, want := persistedRoot(kv), c.Head().Root; got != want {
		t.Fatalf("persisted state %s when Open returned, want the genesis state %s", got, want)
	}
}
