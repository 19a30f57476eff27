package chain

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/types/bal"
	"github.com/ethereum/go-ethereum/rlp"
)

// importBatchSize is how many blocks go to InsertChain at once (as geth import).
const importBatchSize = 2500

// exportBlock is geth's export file record (cmd/utils): a block with an
// optional trailing access list, so files from geth import here and back.
type exportBlock struct {
	Header      *types.Header
	Txs         []*types.Transaction
	Uncles      []*types.Header
	Withdrawals []*types.Withdrawal  `rlp:"optional"`
	AccessList  *bal.BlockAccessList `rlp:"optional"`
}

func (b exportBlock) block() *types.Block {
	block := types.NewBlockWithHeader(b.Header).WithBody(types.Body{
		Transactions: b.Txs,
		Uncles:       b.Uncles,
		Withdrawals:  b.Withdrawals,
	})
	return block.WithAccessListUnsafe(b.AccessList)
}

// Import reads a chain file in geth's export format (gzip when the name ends
// in .gz) and inserts its blocks with full validation: headers through the
// engine, bodies, and every state root. Blocks already present are skipped.
// The imported head becomes safe and finalized. It returns the new head.
func (c *Chain) Import(ctx context.Context, path string) (*types.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open chain file: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("open gzip chain file: %w", err)
		}
		defer gz.Close()
		r = gz
	}
	if _, err := c.importStream(ctx, rlp.NewStream(r, 0)); err != nil {
		return nil, err
	}
	head := c.Head()
	c.markFinal(head)
	return head, c.Sync()
}

// importStream inserts the blocks of stream that the chain lacks and returns
// how many it inserted.
func (c *Chain) importStream(ctx context.Context, stream *rlp.Stream) (int, error) {
	read, inserted := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return inserted, fmt.Errorf("import interrupted after %d blocks: %w", read, err)
		}
		batch, err := readBatch(stream, &read)
		if err != nil {
			return inserted, err
		}
		if len(batch) == 0 {
			return inserted, nil
		}
		if missing := c.missing(batch); len(missing) > 0 {
			if head := c.bc.CurrentBlock(); missing[0].ParentHash() != head.Hash() {
				return inserted, fmt.Errorf("import block %d: it does not extend the head %d %s (this chain never reorgs)",
					missing[0].NumberU64(), head.Number, head.Hash().Hex())
			}
			if _, err := c.bc.InsertChain(missing); err != nil {
				return inserted, fmt.Errorf("import block: %w", err)
			}
			inserted += len(missing)
		}
	}
}

// readBatch decodes up to importBatchSize blocks, skipping the genesis block
// that geth export writes first.
func readBatch(stream *rlp.Stream, read *int) (types.Blocks, error) {
	var batch types.Blocks
	for len(batch) < importBatchSize {
		var record exportBlock
		if err := stream.Decode(&record); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode chain file at record %d: %w", *read, err)
		}
		*read++
		if b := record.block(); b.NumberU64() != 0 {
			batch = append(batch, b)
		}
	}
	return batch, nil
}

// missing drops the leading blocks that the chain already has: canonical
// blocks up to the head. (Not "with state": a full node has pruned the
// state of old blocks, and a block above the head that is still stored
// after a crash has none.)
func (c *Chain) missing(blocks types.Blocks) types.Blocks {
	head := c.bc.CurrentBlock().Number.Uint64()
	for i, b := range blocks {
		if n := b.NumberU64(); n > head || c.bc.GetCanonicalHash(n) != b.Hash() {
			return blocks[i:]
		}
	}
	return nil
}

// Export writes the canonical chain from genesis to head in geth's export
// format (gzip when the name ends in .gz).
func (c *Chain) Export(path string) (head *types.Header, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create chain file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close chain file: %w", cerr)
		}
	}()
	var w io.Writer = f
	if strings.HasSuffix(path, ".gz") {
		gz := gzip.NewWriter(f)
		defer func() {
			if cerr := gz.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("finish gzip chain file: %w", cerr)
			}
		}()
		w = gz
	}
	head = c.Head()
	return head, c.exportRange(w, head.Number.Uint64())
}

func (c *Chain) exportRange(w io.Writer, last uint64) error {
	var parent common.Hash
	for n := uint64(0); n <= last; n++ {
		block := c.bc.GetBlockByNumber(n)
		if block == nil {
			return fmt.Errorf("export block %d: not found", n)
		}
		if n > 0 && block.ParentHash() != parent {
			return fmt.Errorf("export block %d: chain changed during export", n)
		}
		parent = block.Hash()
		if err := rlp.Encode(w, exportRecord(block)); err != nil {
			return fmt.Errorf("export block %d: %w", n, err)
		}
	}
	return nil
}

// exportRecord is block as geth's export file record.
func exportRecord(block *types.Block) exportBlock {
	return exportBlock{
		Header:      block.Header(),
		Txs:         block.Transactions(),
		Uncles:      block.Uncles(),
		Withdrawals: block.Withdrawals(),
		AccessList:  block.AccessList(),
	}
}
