package main

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	tc "github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

// eth_getProof (EIP-1186) and eth_getStorageValues. The expected proofs are
// go-ethereum's trie code's (trie.StateTrie.Prove on the imported chain's
// tries), each checked with trie.VerifyProof against the block's state
// root before it is written. The answer's shape is geth's: an absent
// account reads as zero balance, nonce, code hash and storage hash; a
// 32-byte storage key is echoed as given, a shorter one as a quantity.

// errClientLimit is geth's error for a request over a client limit.
var errClientLimit = obj{"code": -38026, "message": "too many slots"}

func (g *gen) proofCases() {
	head := tc.BlockLast
	A, C, D := tc.AddrA, tc.C, tc.AddrD
	unknown := common.HexToAddress("0x00000000000000000000000000000000deadbeef")
	slot32 := "0x" + strings.Repeat("0", 63) + "1"
	m := "eth_getProof"
	g.add(m, "get-proof-contract-storage", "C's slots 0 and 1 (set) and 2 (never written) at the head", g.proof(head, C, "0x0", "0x1", "0x2"), addr(C), []any{"0x0", "0x1", "0x2"}, "latest")
	g.add(m, "get-proof-32-byte-key", "a 32-byte key is echoed as given, a shorter one as a quantity", g.proof(head, C, slot32, "0x01"), addr(C), []any{slot32, "0x01"}, "latest")
	g.add(m, "get-proof-key-without-prefix", "keys are decoded leniently: no 0x, odd length", g.proof(head, C, "1"), addr(C), []any{"1"}, "latest")
	g.add(m, "get-proof-eoa", "an EOA: empty code hash, empty storage root", g.proof(head, A), addr(A), []any{}, "latest")
	g.add(m, "get-proof-eoa-slot", "a slot of an account without storage: value zero, empty proof", g.proof(head, A, "0x0"), addr(A), []any{"0x0"}, "latest")
	g.add(m, "get-proof-absent-account", "an account that does not exist: zero hashes, absence proven", g.proof(head, unknown, "0x0"), addr(unknown), []any{"0x0"}, "latest")
	g.add(m, "get-proof-block-number", "C after block 4 (set(42))", g.proof(4, C, "0x0", "0x1"), addr(C), []any{"0x0", "0x1"}, bn(4))
	g.add(m, "get-proof-before-deploy", "C before it exists", g.proof(1, C, "0x0"), addr(C), []any{"0x0"}, bn(1))
	g.add(m, "get-proof-block-hash-object", "EIP-1898 block hash object", g.proof(9, C, "0x0"), addr(C), []any{"0x0"}, obj{"blockHash": g.bh(9)})
	g.add(m, "get-proof-earliest", "A in the genesis state", g.proof(0, A), addr(A), []any{}, "earliest")
	g.add(m, "get-proof-delegated-eoa", "D, delegated by EIP-7702, with the storage written through its delegation", g.proof(head, D, "0x0"), addr(D), []any{"0x0"}, "latest")
	history := fmt.Sprintf("%#x", head-1)
	g.add(m, "get-proof-system-contract", "the EIP-2935 history contract's slot of the head's parent hash", g.proof(head, params.HistoryStorageAddress, history), addr(params.HistoryStorageAddress), []any{history}, "latest")
	g.add(m, "get-proof-default-block", "block omitted: latest (geth 1.17 and the execution-apis fixtures; geth 1.16 requires it)", g.proof(head, C, "0x0"), addr(C), []any{"0x0"})
	g.addErr(m, "get-proof-invalid-key", "a storage key that is not hex", errInvalidParams, addr(C), []any{"0xzz"}, "latest")
	g.addErr(m, "get-proof-key-too-long", "a storage key longer than 32 bytes", errInvalidParams, addr(C), []any{"0x" + string(make65('1'))}, "latest")
	g.addErr(m, "get-proof-too-many-keys-code", "more than 1024 storage keys (geth 1.17's cap, stocknode's default)", obj{"code": -32602, "message": "too many storage keys requested"}, addr(C), manyKeys(1025), "latest")
	g.addErr(m, "get-proof-invalid-address", "an address that is not 20 bytes", errInvalidParams, "0x1234", []any{}, "latest")
	g.addErr(m, "get-proof-future-block", "a block beyond the head", errNoBlock, addr(C), []any{}, "0x64")
	g.addErr(m, "get-proof-unknown-block-hash", "", errNoBlock, addr(C), []any{}, obj{"blockHash": unknownHash})

	m = "eth_getStorageValues"
	values := func(n int, reqs map[common.Address][]uint64) (obj, obj) {
		params, result := obj{}, obj{}
		st := g.state(uint64(n))
		for a, slots := range reqs {
			var keys, vals []any
			for _, s := range slots {
				keys = append(keys, wordHex(s))
				vals = append(vals, hash(st.GetState(a, word(s))))
			}
			params[addr(a)], result[addr(a)] = keys, vals
		}
		return params, result
	}
	p, r := values(head, map[common.Address][]uint64{C: {0, 1, 2}, D: {0}})
	g.add(m, "get-storage-values-latest", "slots of two accounts at the head, in the order asked", r, p, "latest")
	p, r = values(4, map[common.Address][]uint64{C: {1, 0}})
	g.add(m, "get-storage-values-block-number", "C after block 4", r, p, bn(4))
	p, r = values(head, map[common.Address][]uint64{unknown: {0}})
	g.add(m, "get-storage-values-unknown-account", "an account that does not exist reads zero", r, p, "latest")
	p, r = values(head, map[common.Address][]uint64{C: {0}})
	g.add(m, "get-storage-values-default-block", "block omitted: latest", r, p)
	g.addErr(m, "get-storage-values-empty", "no slots at all", errInvalidParams, obj{})
	g.addErr(m, "get-storage-values-invalid-address", "", errInvalidParams, obj{"0x1234": []any{wordHex(0)}}, "latest")
	g.addErr(m, "get-storage-values-future-block", "", errNoBlock, obj{addr(C): []any{wordHex(0)}}, "0x64")
	g.addErr(m, "get-storage-values-too-many-code", "more than 1024 slots in all (geth's cap)", errClientLimit, obj{addr(C): manyHashes(600), addr(D): manyHashes(600)}, "latest")
}

func manyKeys(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("%#x", i)
	}
	return out
}

func manyHashes(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = wordHex(uint64(i))
	}
	return out
}

// nodeList collects a proof's nodes in order.
type nodeList []string

func (l *nodeList) Put(_, value []byte) error { *l = append(*l, data(value)); return nil }
func (l *nodeList) Delete([]byte) error       { panic("not supported") }

// proof is eth_getProof's answer for a after block n, proven with
// go-ethereum's trie code and verified against the block's state root.
func (g *gen) proof(n int, a common.Address, keys ...string) obj {
	root := g.blocks[n].Root()
	tdb := g.bc.TrieDB()
	tr, err := trie.NewStateTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		panic(err)
	}
	acct, err := tr.GetAccount(a)
	if err != nil {
		panic(err)
	}
	var accountProof nodeList
	if err := tr.Prove(crypto.Keccak256(a.Bytes()), &accountProof); err != nil {
		panic(err)
	}
	out := obj{"address": addr(a), "accountProof": []string(accountProof), "balance": "0x0", "codeHash": hash(common.Hash{}), "nonce": "0x0", "storageHash": hash(common.Hash{})}
	checkProof(root, crypto.Keccak256(a.Bytes()), accountProof, acct != nil)
	var storage *trie.StateTrie
	if acct != nil {
		out["balance"], out["codeHash"], out["nonce"], out["storageHash"] = qu(acct.Balance), hash(common.BytesToHash(acct.CodeHash)), q(acct.Nonce), hash(acct.Root)
		if acct.Root != types.EmptyRootHash {
			if storage, err = trie.NewStateTrie(trie.StorageTrieID(root, crypto.Keccak256Hash(a.Bytes()), acct.Root), tdb); err != nil {
				panic(err)
			}
		}
	}
	slots := []any{}
	for _, k := range keys {
		slot, spelled := storageKey(k)
		entry := obj{"key": spelled, "value": "0x0", "proof": []string{}}
		if storage != nil {
			value, err := storage.GetStorage(a, slot.Bytes())
			if err != nil {
				panic(err)
			}
			var p nodeList
			if err := storage.Prove(crypto.Keccak256(slot.Bytes()), &p); err != nil {
				panic(err)
			}
			checkProof(acct.Root, crypto.Keccak256(slot.Bytes()), p, len(value) > 0)
			entry["value"], entry["proof"] = qb(new(big.Int).SetBytes(value)), []string(p)
		}
		slots = append(slots, entry)
	}
	out["storageProof"] = slots
	return out
}

// storageKey decodes a key as eth_getProof reads it and spells it as it
// answers: a 32-byte key as given, a shorter one as a quantity.
func storageKey(k string) (common.Hash, string) {
	digits := strings.TrimPrefix(k, "0x")
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	b := common.FromHex(digits)
	slot := common.BytesToHash(b)
	if len(b) == common.HashLength {
		return slot, hexutil.Encode(b)
	}
	return slot, hexutil.EncodeBig(slot.Big())
}

// checkProof verifies a proof against root: present says whether it must
// prove a value or an absence.
func checkProof(root common.Hash, key []byte, nodes nodeList, present bool) {
	db := memorydb.New()
	for _, n := range nodes {
		enc := common.FromHex(n)
		db.Put(crypto.Keccak256(enc), enc)
	}
	value, err := trie.VerifyProof(root, key, db)
	if err != nil || (value != nil) != present {
		panic(fmt.Sprintf("proof of %x against %s: value %x, %v (want present %v)", key, root, value, err, present))
	}
}
