package main

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

// The raw getters of the debug namespace (consensus encodings, checked
// against the hashes and roots the chain commits to), eth_blobBaseFee and
// eth_config (EIP-7910, from go-ethereum's fork tables).

func (g *gen) rawCases() {
	head := tc.BlockLast
	m := "debug_getRawHeader"
	g.add(m, "get-genesis", "", g.rawHeader(0), "0x0")
	g.add(m, "get-block-n", "block 8, with a blob transaction (blob gas fields)", g.rawHeader(8), bn(8))
	g.add(m, "get-latest", "", g.rawHeader(head), "latest")
	g.add(m, "get-by-hash", "block given as a plain block hash", g.rawHeader(9), g.bh(9))
	g.add(m, "get-block-hash-object", "EIP-1898 block hash object", g.rawHeader(4), obj{"blockHash": g.bh(4)})
	g.add(m, "get-notfound", "a block beyond the head is null", nil, "0x64")
	g.addErr(m, "get-invalid-number", "a number without 0x", errInvalidParams, "2")
	g.addErr(m, "get-unknown-hash", "a hash the chain does not have", errNoBlock, unknownHash)

	m = "debug_getRawBlock"
	g.add(m, "get-genesis", "", g.rawBlock(0), "0x0")
	g.add(m, "get-block-n", "block 9: three transactions with logs", g.rawBlock(9), bn(9))
	g.add(m, "get-block-setcode", "block 7: an EIP-7702 transaction", g.rawBlock(7), bn(7))
	g.add(m, "get-block-withdrawals", "block 6: no transactions, two withdrawals", g.rawBlock(6), bn(6))
	g.add(m, "get-latest", "", g.rawBlock(head), "latest")
	g.add(m, "get-by-hash", "", g.rawBlock(2), g.bh(2))
	g.add(m, "get-notfound", "", nil, "0x64")
	g.addErr(m, "get-invalid-number", "", errInvalidParams, "2")
	g.addErr(m, "get-unknown-hash", "", errNoBlock, unknownHash)

	m = "debug_getRawReceipts"
	g.add(m, "get-block-n", "block 9: receipts with logs", g.rawReceipts(9), bn(9))
	g.add(m, "get-failed", "block 5: two reverted transactions", g.rawReceipts(5), bn(5))
	g.add(m, "get-blob", "block 8: a blob transaction's receipt", g.rawReceipts(8), bn(8))
	g.add(m, "get-setcode", "block 7: an EIP-7702 transaction's receipt", g.rawReceipts(7), bn(7))
	g.add(m, "get-genesis", "the genesis block has no receipts", g.rawReceipts(0), "0x0")
	g.add(m, "get-empty-block", "", g.rawReceipts(6), bn(6))
	g.add(m, "get-block-hash", "", g.rawReceipts(4), g.bh(4))
	g.add(m, "get-latest", "", g.rawReceipts(head), "latest")
	g.add(m, "get-notfound", "", nil, "0x64")
	g.addErr(m, "get-invalid-number", "", errInvalidParams, "2")

	m = "debug_getRawTransaction"
	for _, c := range []struct {
		name, comment string
		block, index  int
	}{
		{"get-legacy-tx", "an EIP-155 legacy transfer: plain RLP", 1, 0},
		{"get-access-list-tx", "EIP-2930: type byte then RLP", 1, 1},
		{"get-dynamic-fee-tx", "an EIP-1559 contract creation", 2, 0},
		{"get-setcode-tx", "an EIP-7702 transaction", 7, 0},
		{"get-blob-tx", "an EIP-4844 transaction, without its sidecar as the block holds it", 8, 0},
	} {
		g.add(m, c.name, c.comment, g.rawTx(c.block, c.index), hash(g.tx(c.block, c.index).Hash()))
	}
	g.add(m, "get-notfound-tx", "an unknown transaction is null", nil, unknownHash)
	g.addErr(m, "get-invalid-hash", "a hash without 0x", errInvalidParams, "1000000000000000000000000000000000000000000000000000000000000001")

	g.add("eth_blobBaseFee", "get-current-blobfee", "the head's blob base fee, from its excess blob gas", qb(g.blobBaseFee(g.head().Header())))
	g.add("eth_config", "get-config", "the fork at the head (Prague, from genesis); none scheduled after it", g.ethConfig())
}

func (g *gen) rawHeader(n int) string {
	enc, err := rlp.EncodeToBytes(g.blocks[n].Header())
	if err != nil {
		panic(err)
	}
	var h types.Header
	if rlp.DecodeBytes(enc, &h) != nil || h.Hash() != g.blocks[n].Hash() {
		panic(fmt.Sprintf("header %d does not round-trip", n))
	}
	return data(enc)
}

func (g *gen) rawBlock(n int) string {
	enc, err := rlp.EncodeToBytes(g.blocks[n])
	if err != nil {
		panic(err)
	}
	var b types.Block
	if rlp.DecodeBytes(enc, &b) != nil || b.Hash() != g.blocks[n].Hash() || types.DeriveSha(b.Transactions(), trie.NewStackTrie(nil)) != b.TxHash() {
		panic(fmt.Sprintf("block %d does not round-trip", n))
	}
	return data(enc)
}

// rawReceipts are block n's receipts in their consensus encoding, checked
// against the header's receipts root.
func (g *gen) rawReceipts(n int) []any {
	receipts := g.receipts[n]
	if types.DeriveSha(receipts, trie.NewStackTrie(nil)) != g.blocks[n].ReceiptHash() {
		panic(fmt.Sprintf("receipts of block %d do not match its receipts root", n))
	}
	out := []any{}
	for _, r := range receipts {
		enc, err := r.MarshalBinary()
		if err != nil {
			panic(err)
		}
		out = append(out, data(enc))
	}
	return out
}

func (g *gen) rawTx(block, index int) string {
	tx := g.tx(block, index)
	enc, err := tx.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return data(enc)
}

// config is eth_config's answer as EIP-7910 and geth compute it.
func (g *gen) ethConfig() obj {
	c := g.config
	genesis := g.blocks[0]
	now := g.head().Time()
	current, last := c.LatestFork(now), c.LatestFork(^uint64(0))
	fork := func(at *uint64) any {
		if at == nil {
			return nil
		}
		t := *at
		precompiles := obj{}
		for a, p := range vm.ActivePrecompiledContracts(c.Rules(c.LondonBlock, true, t)) {
			precompiles[p.Name()] = addr(a)
		}
		system := obj{}
		for name, a := range c.ActiveSystemContracts(t) {
			system[name] = addr(a)
		}
		activation := t
		if genesis.Time() >= t {
			activation = 0
		}
		id := forkid.NewID(c, genesis, ^uint64(0), t).Hash
		blobs := c.BlobConfig(c.LatestFork(t))
		return obj{
			"activationTime":  activation,
			"blobSchedule":    obj{"target": blobs.Target, "max": blobs.Max, "baseFeeUpdateFraction": blobs.UpdateFraction},
			"chainId":         qb(c.ChainID),
			"forkId":          hexutil.Encode(id[:]),
			"precompiles":     precompiles,
			"systemContracts": system,
		}
	}
	var next *uint64
	for f := current + 1; f <= last; f++ {
		if t := c.Timestamp(f); t != nil {
			next = t
			break
		}
	}
	if next != nil {
		panic("the test chain schedules no fork after Prague")
	}
	return obj{"current": fork(c.Timestamp(current)), "next": nil, "last": nil}
}
