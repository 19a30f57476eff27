package chain

import (
	"errors"
	"io/fs"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
)

// BenchmarkPersistence measures what committing state at every block costs
// (the choice Chain makes so that nothing announced is lost on kill -9)
// against the alternatives: geth's default full node, which keeps up to 128
// blocks of state in memory and would need a replay on restart, and the
// path scheme. It reports the time to insert one block and the bytes the
// database grows by per block.
//
//	go test -run '^$' -bench Persistence -benchtime 3x ./node/chain/
func BenchmarkPersistence(b *testing.B) {
	variants := []struct {
		name string
		cfg  func() *core.BlockChainConfig
		sync bool
		// flush commits the path database's layers to disk after every block.
		flush bool
	}{
		{"archive+fsync(stocknode)", func() *core.BlockChainConfig { return core.DefaultConfig().WithArchive(true) }, true, false},
		{"archive", func() *core.BlockChainConfig { return core.DefaultConfig().WithArchive(true) }, false, false},
		{"geth-full(state-in-memory)", core.DefaultConfig, false, false},
		{"path-scheme", func() *core.BlockChainConfig { return core.DefaultConfig().WithStateScheme(rawdb.PathScheme) }, false, false},
		{"path+flush+fsync", func() *core.BlockChainConfig { return core.DefaultConfig().WithStateScheme(rawdb.PathScheme) }, true, true},
		{"path-archive+flush+fsync", func() *core.BlockChainConfig {
			return core.DefaultConfig().WithStateScheme(rawdb.PathScheme).WithArchive(true)
		}, true, true},
	}
	for _, txs := range []int{0, 100} {
		genesis, blocks := benchChain(b, 100, txs)
		for _, v := range variants {
			b.Run(v.name+"/txs="+itoa(txs), func(b *testing.B) {
				var perBlock, growth float64
				for b.Loop() {
					dir, db := openBenchDB(b)
					bc, err := core.NewBlockChain(db, genesis, NewEngine(nil), v.cfg())
					if err != nil {
						b.Fatal(err)
					}
					before := dirSize(b, dir)
					start := b.Elapsed()
					for _, block := range blocks {
						if _, err := bc.InsertChain(types.Blocks{block}); err != nil {
							b.Fatal(err)
						}
						if v.flush {
							if err := bc.TrieDB().Commit(block.Root(), false); err != nil {
								b.Fatal(err)
							}
						}
						if v.sync {
							if err := db.SyncKeyValue(); err != nil {
								b.Fatal(err)
							}
						}
					}
					perBlock = float64(b.Elapsed()-start) / float64(len(blocks))
					db.Compact(nil, nil)
					growth = float64(dirSize(b, dir)-before) / float64(len(blocks))
					bc.Stop()
					db.Close()
				}
				b.ReportMetric(perBlock, "ns/block")
				b.ReportMetric(growth, "disk-B/block")
			})
		}
	}
}

// benchChain makes n blocks of txs transfers each on the preview genesis.
func benchChain(b *testing.B, n, txs int) (*core.Genesis, []*types.Block) {
	keys, err := DevKeys(DevAccountCount)
	if err != nil {
		b.Fatal(err)
	}
	genesis, err := PreviewGenesis(common.Address{0xfa})
	if err != nil {
		b.Fatal(err)
	}
	signer := types.LatestSigner(genesis.Config)
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, NewEngine(nil), n, func(i int, g *core.BlockGen) {
		for j := 0; j < txs; j++ {
			key := keys[j%len(keys)]
			from := crypto.PubkeyToAddress(key.PublicKey)
			to := common.BigToAddress(big.NewInt(int64(1000 + i*txs + j)))
			tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{
				ChainID: genesis.Config.ChainID, Nonce: g.TxNonce(from), GasTipCap: big.NewInt(1),
				GasFeeCap: big.NewInt(10 * params.GWei), Gas: params.TxGas, To: &to, Value: big.NewInt(1),
			})
			if err != nil {
				b.Fatal(err)
			}
			g.AddTx(tx)
		}
	})
	return genesis, blocks
}

func dirSize(b *testing.B, dir string) int64 {
	var size int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed by a compaction while we walk
		}
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil {
			size += info.Size()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return size
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// openBenchDB opens a fresh pebble database with a freezer in a temporary
// directory.
func openBenchDB(b *testing.B) (string, ethdb.Database) {
	dir := b.TempDir()
	kv, err := pebble.New(dir, 64, 64, "", false)
	if err != nil {
		b.Fatal(err)
	}
	db, err := rawdb.Open(kv, rawdb.OpenOptions{Ancient: filepath.Join(dir, "ancient")})
	if err != nil {
		b.Fatal(err)
	}
	return dir, db
}
