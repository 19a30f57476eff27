package fixturechain

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
)

// Files returns the contents of conformance/chain: genesis.json (geth
// format), chain.rlp (geth's export format, written by
// (*core.BlockChain).Export after go-ethereum inserted and validated every
// generated block) and info.json (the head, for scripts).
func Files() (map[string][]byte, error) {
	blocks := Generate()
	cfg := core.DefaultConfig()
	cfg.StateScheme = rawdb.HashScheme
	cfg.ArchiveMode = true
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), Genesis(), Engine(), cfg)
	if err != nil {
		return nil, err
	}
	defer bc.Stop()
	if n, err := bc.InsertChain(blocks); err != nil {
		return nil, fmt.Errorf("go-ethereum rejects block %d of the generated chain: %w", blocks[n].NumberU64(), err)
	}
	var chain bytes.Buffer
	if err := bc.Export(&chain); err != nil {
		return nil, err
	}
	genesis, err := json.MarshalIndent(Genesis(), "", "  ")
	if err != nil {
		return nil, err
	}
	head := bc.CurrentBlock()
	last := blocks[len(blocks)-1].Transactions()
	info, err := json.MarshalIndent(map[string]any{
		"chainId":      ChainID,
		"genesisHash":  bc.Genesis().Hash(),
		"headNumber":   head.Number.Uint64(),
		"headHash":     head.Hash(),
		"headRoot":     head.Root,
		"lastTxHash":   last[len(last)-1].Hash(),
		"generatedBy":  "go run ./conformance/cmd/genchain",
		"blockTimeSec": BlockTime,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		"genesis.json": append(genesis, '\n'),
		"chain.rlp":    chain.Bytes(),
		"info.json":    append(info, '\n'),
	}, nil
}
