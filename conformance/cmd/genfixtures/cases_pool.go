package main

import tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"

// The pool methods and Base's base_transactionStatus. The chain is
// imported, never sent, so the pool a node holds is empty: the txpool
// fixtures check the shapes of an empty pool (geth's: "pending" and
// "queued" maps, counts as quantities); the pool's contents are tested
// against running nodes (e2e/txpool_test.go). A transaction of the chain
// is Known to base_transactionStatus, any other hash Unknown.
func (g *gen) poolCases() {
	empty := obj{"pending": obj{}, "queued": obj{}}
	g.add("txpool_status", "get-empty", "", obj{"pending": "0x0", "queued": "0x0"})
	g.add("txpool_content", "get-empty", "", empty)
	g.add("txpool_inspect", "get-empty", "", empty)
	g.add("txpool_contentFrom", "get-empty", "a sender of the chain with nothing pooled", empty, addr(tc.AddrA))
	g.addErr("txpool_contentFrom", "get-invalid-address", "", errInvalidParams, "0x1234")
	g.addErr("txpool_contentFrom", "get-missing-address", "", errInvalidParams)

	m := "base_transactionStatus"
	tx := g.blocks[1].Transactions()[0]
	g.add(m, "get-sealed", "a transaction of block 1", obj{"status": "Known"}, hash(tx.Hash()))
	g.add(m, "get-unknown", "a hash no transaction has", obj{"status": "Unknown"}, unknownHash)
	g.addErr(m, "get-invalid-hash", "", errInvalidParams, "0x1234")
}
