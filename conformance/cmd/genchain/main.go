// Command genchain writes the conformance test chain: conformance/chain/
// genesis.json (geth format) and chain.rlp (geth's export format, written by
// (*core.BlockChain).Export after go-ethereum has inserted and validated
// every block). The chain is deterministic; see internal/testchain.
//
//	go run ./conformance/cmd/genchain [-out conformance/chain]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"

	"github.com/stocknode/stocknode/conformance/internal/testchain"
)

func main() {
	out := flag.String("out", "conformance/chain", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

func run(out string) error {
	blocks := testchain.Generate()

	cfg := core.DefaultConfig()
	cfg.StateScheme = rawdb.HashScheme
	cfg.ArchiveMode = true
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), testchain.Genesis(), testchain.Engine(), cfg)
	if err != nil {
		return err
	}
	defer bc.Stop()
	if n, err := bc.InsertChain(blocks); err != nil {
		return fmt.Errorf("go-ethereum rejects block %d of the generated chain: %w", blocks[n].NumberU64(), err)
	}
	var chain bytes.Buffer
	if err := bc.Export(&chain); err != nil {
		return err
	}
	genesis, err := json.MarshalIndent(testchain.Genesis(), "", "  ")
	if err != nil {
		return err
	}
	head := bc.CurrentBlock()
	info, err := json.MarshalIndent(map[string]any{
		"chainId":      testchain.ChainID,
		"genesisHash":  bc.Genesis().Hash(),
		"headNumber":   head.Number.Uint64(),
		"headHash":     head.Hash(),
		"headRoot":     head.Root,
		"lastTxHash":   blocks[len(blocks)-1].Transactions()[len(blocks[len(blocks)-1].Transactions())-1].Hash(),
		"generatedBy":  "go run ./conformance/cmd/genchain",
		"blockTimeSec": testchain.BlockTime,
	}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"genesis.json": append(genesis, '\n'),
		"chain.rlp":    chain.Bytes(),
		"info.json":    append(info, '\n'),
	} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("chain: %d blocks, head %d %s, state root %s, %d bytes\n", len(blocks), head.Number, head.Hash(), head.Root, chain.Len())
	return nil
}
