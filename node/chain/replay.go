package chain

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// replayFile holds, in geth's export format, the blocks above the persisted
// state of a full-mode database while Open brings the state back to the
// head. It lives in the database directory.
const replayFile = "replay.rlp"

// saveUnpersisted writes the blocks between the persisted state and the head
// to path, before core.NewBlockChain opens the database.
//
// After an unclean shutdown the path scheme's persisted state trails the
// head (the newest states were in memory). NewBlockChain repairs that by
// rewinding the head to the newest block with state, and as stocknode
// finalizes every block, the chain freezer has moved nearly all of them to
// the ancient store, which the rewind truncates: the blocks above are
// deleted. Open replays them from this file instead, so that nothing
// announced is lost; the file is synced before the database is touched and
// removed only after the replay, so a crash during the replay repeats it.
func saveUnpersisted(db ethdb.Database, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil // a replay was interrupted: the file still holds its blocks
	}
	headers, err := unpersisted(db)
	if err != nil || len(headers) == 0 {
		return err
	}
	tmp := path + ".tmp"
	if err := writeBlocks(db, tmp, headers); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save blocks to replay: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// unpersisted returns the headers of the canonical blocks above the
// persisted state, oldest first; none when the head's state is persisted
// (or the database is empty).
func unpersisted(db ethdb.Database) ([]*types.Header, error) {
	hash := rawdb.ReadHeadBlockHash(db)
	if hash == (common.Hash{}) {
		return nil, nil
	}
	root := persistedRoot(db)
	var headers []*types.Header
	for {
		number, ok := rawdb.ReadHeaderNumber(db, hash)
		if !ok {
			return nil, fmt.Errorf("find the persisted state: header %s is missing", hash.Hex())
		}
		header := rawdb.ReadHeader(db, hash, number)
		if header == nil {
			return nil, fmt.Errorf("find the persisted state: header %d %s is missing", number, hash.Hex())
		}
		if header.Root == root {
			break
		}
		if number == 0 && root == types.EmptyRootHash {
			return nil, errors.New("the genesis state was never written: the node was stopped while it created the chain; remove the datadir and start again")
		}
		if number == 0 {
			return nil, fmt.Errorf("the persisted state %s is the state of no canonical block", root.Hex())
		}
		headers = append(headers, header)
		hash = header.ParentHash
	}
	slices.Reverse(headers)
	return headers, nil
}

// persistedRoot is the root of the path scheme's state on disk.
func persistedRoot(db ethdb.KeyValueReader) common.Hash {
	blob := rawdb.ReadAccountTrieNode(db, nil)
	if len(blob) == 0 {
		return types.EmptyRootHash
	}
	return crypto.Keccak256Hash(blob)
}

// writeBlocks writes the blocks of headers to path and syncs it.
func writeBlocks(db ethdb.Database, path string, headers []*types.Header) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("save blocks to replay: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	for _, h := range headers {
		block := rawdb.ReadBlock(db, h.Hash(), h.Number.Uint64())
		if block == nil {
			return fmt.Errorf("save blocks to replay: block %d %s is missing", h.Number, h.Hash().Hex())
		}
		if err := rlp.Encode(w, exportRecord(block)); err != nil {
			return fmt.Errorf("save block %d to replay: %w", h.Number, err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("save blocks to replay: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("save blocks to replay: %w", err)
	}
	return f.Close()
}

// replay inserts the blocks saved in path that the chain lacks, validating
// them as Append does (state roots included), then removes the file.
func (c *Chain) replay(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open blocks to replay: %w", err)
	}
	defer f.Close()
	start, from := time.Now(), c.Head().Number.Uint64()+1
	n, err := c.importStream(context.Background(), rlp.NewStream(bufio.NewReader(f), 0))
	if err != nil {
		return fmt.Errorf("replay blocks above the persisted state from %s: %w", path, err)
	}
	if n > 0 {
		c.markFinal(c.Head())
		c.recovery = Recovery{Replayed: n, From: from, Took: time.Since(start)}
	}
	if err := c.Sync(); err != nil {
		return err
	}
	// Only a durable removal may let new blocks be produced: a file left
	// behind would be taken for an interrupted replay by the next start.
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove replayed blocks: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a file creation, rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
