package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// TestTraceChain checks the transfers chain the servers import: every
// transfer in block 1, in order, and the hashes and block the workloads
// trace.
func TestTraceChain(t *testing.T) {
	for _, n := range []int{traceTxCount, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			txs, err := traceTxs(n)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "chain.rlp")
			if err := writeTraceChain(path, txs); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var block types.Block
			if err := rlp.Decode(bytes.NewReader(data), &block); err != nil {
				t.Fatal(err)
			}
			if block.NumberU64() != 1 || block.Transactions().Len() != n {
				t.Fatalf("block %d with %d transactions, want block 1 with %d", block.NumberU64(), block.Transactions().Len(), n)
			}
			for i, tx := range block.Transactions() {
				if tx.Hash() != txs[i].Hash() {
					t.Fatalf("transaction %d is %s, want %s", i, tx.Hash(), txs[i].Hash())
				}
			}
			hashes := filepath.Join(dir, "hashes")
			numbers, err := listChain(path, hashes)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(hashes)
			if lines := strings.Fields(string(got)); len(lines) != n || lines[0] != txs[0].Hash().Hex() {
				t.Fatalf("hashes file: %d lines, first %q", len(lines), lines[0])
			}
			if len(numbers) != 1 || numbers[0] != 1 {
				t.Fatalf("blocks with transactions: %v, want [1]", numbers)
			}
		})
	}
}

// The bundled execution-apis chain lists its 249 transactions over 54
// blocks.
func TestListExecutionAPIsChain(t *testing.T) {
	hashes := filepath.Join(t.TempDir(), "hashes")
	numbers, err := listChain(filepath.Join("chains", "execution-apis", "chain.rlp"), hashes)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(hashes); len(strings.Fields(string(got))) != 249 {
		t.Fatalf("%d transactions listed, want 249", len(strings.Fields(string(got))))
	}
	if len(numbers) != 54 || numbers[0] != 1 || numbers[53] != 54 {
		t.Fatalf("blocks with transactions: %v, want 1 to 54", numbers)
	}
}
