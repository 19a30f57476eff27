package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stocknode/stocknode/node/chain"
)

// storeRuntime stores calldata word 1 at the slot calldata word 0 names.
var storeRuntime = hexutil.MustDecode("0x6020356000355500")

func storeCall(slot, value uint64) []byte {
	return append(common.BigToHash(new(big.Int).SetUint64(slot)).Bytes(), common.BigToHash(new(big.Int).SetUint64(value)).Bytes()...)
}

// proofResult is eth_getProof's answer as a client decodes it.
type proofResult struct {
	Address      common.Address  `json:"address"`
	AccountProof []hexutil.Bytes `json:"accountProof"`
	Balance      *hexutil.Big    `json:"balance"`
	CodeHash     common.Hash     `json:"codeHash"`
	Nonce        hexutil.Uint64  `json:"nonce"`
	StorageHash  common.Hash     `json:"storageHash"`
	StorageProof []struct {
		Key   string          `json:"key"`
		Value *hexutil.Big    `json:"value"`
		Proof []hexutil.Bytes `json:"proof"`
	} `json:"storageProof"`
	StateRoot *common.Hash `json:"stateRoot"`
}

func proofDB(nodes []hexutil.Bytes) *memorydb.Database {
	db := memorydb.New()
	for _, n := range nodes {
		db.Put(crypto.Keccak256(n), n)
	}
	return db
}

// verifyProof checks a proof with go-ethereum's trie.VerifyProof against
// root: the account (or its absence) and each slot (or its absence). It
// reports with t.Errorf, so other goroutines may call it.
func verifyProof(t *testing.T, root common.Hash, p proofResult) {
	t.Helper()
	leaf, err := trie.VerifyProof(root, crypto.Keccak256(p.Address.Bytes()), proofDB(p.AccountProof))
	if err != nil {
		t.Errorf("account proof of %s against %s: %v", p.Address, root, err)
		return
	}
	if leaf == nil {
		if p.Balance.ToInt().Sign() != 0 || p.Nonce != 0 || p.CodeHash != (common.Hash{}) || p.StorageHash != (common.Hash{}) {
			t.Errorf("absent account %s answers %+v", p.Address, p)
		}
	} else {
		var acct types.StateAccount
		if err := rlp.DecodeBytes(leaf, &acct); err != nil {
			t.Errorf("account leaf: %v", err)
			return
		}
		if acct.Nonce != uint64(p.Nonce) || acct.Balance.ToBig().Cmp(p.Balance.ToInt()) != 0 || acct.Root != p.StorageHash || common.BytesToHash(acct.CodeHash) != p.CodeHash {
			t.Errorf("account %s: proven %+v, answered nonce %d balance %s storage %s code %s", p.Address, acct, p.Nonce, p.Balance, p.StorageHash, p.CodeHash)
		}
	}
	for _, sp := range p.StorageProof {
		slot := common.HexToHash(sp.Key)
		if p.StorageHash == types.EmptyRootHash || p.StorageHash == (common.Hash{}) {
			if len(sp.Proof) != 0 || sp.Value.ToInt().Sign() != 0 {
				t.Errorf("slot %s of an account without storage: %+v", sp.Key, sp)
			}
			continue
		}
		enc, err := trie.VerifyProof(p.StorageHash, crypto.Keccak256(slot.Bytes()), proofDB(sp.Proof))
		if err != nil {
			t.Errorf("storage proof of %s slot %s: %v", p.Address, sp.Key, err)
			continue
		}
		var value []byte
		if enc != nil {
			if _, value, _, err = rlp.Split(enc); err != nil {
				t.Errorf("slot %s: %v", sp.Key, err)
			}
		}
		if new(big.Int).SetBytes(value).Cmp(sp.Value.ToInt()) != 0 {
			t.Errorf("slot %s of %s: proven %x, answered %s", sp.Key, p.Address, value, sp.Value)
		}
	}
}

// gethProof is what go-ethereum's trie code proves for addr and slots at
// root, as geth's GetProof builds it (trie.NewStateTrie on the trie
// database, Prove).
func gethProof(t *testing.T, c *chain.Chain, root common.Hash, addr common.Address, storageRoot common.Hash, slots ...common.Hash) (account []string, storage [][]string) {
	t.Helper()
	tdb := c.BlockChain().TrieDB()
	tr, err := trie.NewStateTrie(trie.StateTrieID(root), tdb)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Prove(crypto.Keccak256(addr.Bytes()), (*proofList)(&account)); err != nil {
		t.Fatal(err)
	}
	st, err := trie.NewStateTrie(trie.StorageTrieID(root, crypto.Keccak256Hash(addr.Bytes()), storageRoot), tdb)
	if err != nil {
		t.Fatal(err)
	}
	for _, slot := range slots {
		var p []string
		if err := st.Prove(crypto.Keccak256(slot.Bytes()), (*proofList)(&p)); err != nil {
			t.Fatal(err)
		}
		storage = append(storage, p)
	}
	return account, storage
}

func (n *testNode) proof(tag any, addr common.Address, keys ...string) proofResult {
	n.t.Helper()
	if keys == nil {
		keys = []string{}
	}
	var p proofResult
	n.result(&p, "eth_getProof", addr, keys, tag)
	return p
}

func (n *testNode) stateRoot(number uint64) common.Hash {
	n.t.Helper()
	var block struct {
		StateRoot common.Hash `json:"stateRoot"`
	}
	n.result(&block, "eth_getBlockByNumber", hexutil.Uint64(number), false)
	return block.StateRoot
}

func hexStrings(b []hexutil.Bytes) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = x.String()
	}
	return out
}

// Proofs of existing and absent accounts and slots verify against the
// block's state root, at a block number, a block hash, latest and an older
// block, and equal what go-ethereum's trie code proves.
func TestGetProofVerifies(t *testing.T) {
	n := newTestNode(t, 100*time.Millisecond, 20*time.Millisecond)
	contract := common.HexToAddress(n.waitSealed(n.send(1, nil, new(big.Int), 200_000, deployCode(storeRuntime)))["contractAddress"].(string))
	first := n.waitSealed(n.send(1, &contract, new(big.Int), 100_000, storeCall(1, 0x42)))
	sealed := n.waitSealed(n.send(1, &contract, new(big.Int), 100_000, storeCall(2, 0x43)))
	before, _ := hexutil.DecodeUint64(first["blockNumber"].(string))
	number, _ := hexutil.DecodeUint64(sealed["blockNumber"].(string))
	root := n.stateRoot(number)
	keys := []string{"0x1", "0x02", "0x" + strings.Repeat("0", 63) + "2", "0x3", "0x" + strings.Repeat("ab", 32)}
	absent := common.HexToAddress("0x00000000000000000000000000000000deadbeef")

	t.Run("contract", func(t *testing.T) {
		p := n.proof(hexutil.Uint64(number), contract, keys...)
		verifyProof(t, root, p)
		got := map[string]int64{}
		for _, sp := range p.StorageProof {
			got[sp.Key] = sp.Value.ToInt().Int64()
		}
		want := map[string]int64{"0x1": 0x42, "0x2": 0x43, keys[2]: 0x43, "0x3": 0, keys[4]: 0}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("slots %v, want %v (keys: short ones as quantities, 32-byte ones as given)", got, want)
		}
		if p.CodeHash != crypto.Keccak256Hash(storeRuntime) || p.Nonce != 1 || p.StateRoot != nil {
			t.Errorf("code hash %s, nonce %d, stateRoot %v", p.CodeHash, p.Nonce, p.StateRoot)
		}
		slots := []common.Hash{common.HexToHash("0x1"), common.HexToHash("0x2"), common.HexToHash("0x2"), common.HexToHash("0x3"), common.HexToHash(keys[4])}
		account, storage := gethProof(t, n.chain, root, contract, p.StorageHash, slots...)
		if !slices.Equal(hexStrings(p.AccountProof), account) {
			t.Errorf("account proof differs from go-ethereum's:\n got %v\nwant %v", hexStrings(p.AccountProof), account)
		}
		for i, sp := range p.StorageProof {
			if !slices.Equal(hexStrings(sp.Proof), storage[i]) {
				t.Errorf("proof of %s differs from go-ethereum's", sp.Key)
			}
		}
	})
	t.Run("eoa", func(t *testing.T) {
		p := n.proof(map[string]any{"blockHash": sealed["blockHash"]}, n.addr(1), "0x0")
		verifyProof(t, root, p)
		if p.CodeHash != types.EmptyCodeHash || p.StorageHash != types.EmptyRootHash || p.Nonce != 3 {
			t.Errorf("EOA: %+v", p)
		}
		if len(p.StorageProof) != 1 || len(p.StorageProof[0].Proof) != 0 {
			t.Errorf("slot of an EOA: %+v", p.StorageProof)
		}
	})
	t.Run("absent account", func(t *testing.T) {
		p := n.proof(hexutil.Uint64(number), absent, "0x1")
		verifyProof(t, root, p)
		if p.Balance.ToInt().Sign() != 0 || p.StorageHash != (common.Hash{}) || p.CodeHash != (common.Hash{}) {
			t.Errorf("absent account: %+v", p)
		}
	})
	t.Run("older block", func(t *testing.T) {
		p := n.proof(hexutil.Uint64(before), contract, "0x1", "0x2")
		verifyProof(t, n.stateRoot(before), p)
		if p.StorageProof[0].Value.ToInt().Int64() != 0x42 || p.StorageProof[1].Value.ToInt().Sign() != 0 {
			t.Errorf("slots at block %d: %+v", before, p.StorageProof)
		}
	})
	t.Run("latest", func(t *testing.T) {
		p := n.proof("latest", contract, "0x1")
		// latest moves on; the proof is of one of the blocks since.
		proven := crypto.Keccak256Hash(p.AccountProof[0])
		var head hexutil.Uint64
		n.result(&head, "eth_blockNumber")
		for b := uint64(head); b >= number; b-- {
			if n.stateRoot(b) == proven {
				verifyProof(t, proven, p)
				return
			}
		}
		t.Fatalf("latest proof's root %s is no block's since %d", proven, number)
	})
	t.Run("default block", func(t *testing.T) {
		var p proofResult
		n.result(&p, "eth_getProof", contract, []string{})
		if len(p.AccountProof) == 0 || len(p.StorageProof) != 0 {
			t.Errorf("without a block: %+v", p)
		}
	})
}

// A proof of the pending state verifies against the stateRoot it carries,
// its values are the pending ones, and the rebuilt tries agree with the
// sealed block once it seals.
func TestGetProofPending(t *testing.T) {
	n := newTestNode(t, 1500*time.Millisecond, 20*time.Millisecond)
	contract := common.HexToAddress(n.waitSealed(n.send(2, nil, new(big.Int), 200_000, deployCode(storeRuntime)))["contractAddress"].(string))
	hash := n.send(2, &contract, new(big.Int), 100_000, storeCall(7, 0x77))
	var slot string
	waitFor(t, "the pre-confirmed write", func() bool {
		n.result(&slot, "eth_getStorageAt", contract, "0x7", "pending")
		return slot == common.BigToHash(big.NewInt(0x77)).Hex()
	})
	p := n.proof("pending", contract, "0x7", "0x8")
	if p.StateRoot == nil {
		t.Fatal("a pending proof without stateRoot")
	}
	verifyProof(t, *p.StateRoot, p)
	if p.StorageProof[0].Value.ToInt().Int64() != 0x77 {
		t.Fatalf("pending slot 7 = %s", p.StorageProof[0].Value)
	}
	sender := n.proof("pending", n.addr(2))
	verifyProof(t, *sender.StateRoot, sender)
	if *sender.StateRoot != *p.StateRoot {
		t.Errorf("two proofs of one pending state have roots %s and %s", *sender.StateRoot, *p.StateRoot)
	}
	var balance hexutil.Big
	n.result(&balance, "eth_getBalance", n.addr(2), "pending")
	if balance.ToInt().Cmp(sender.Balance.ToInt()) != 0 || sender.Nonce != 2 {
		t.Errorf("pending sender: proof says balance %s nonce %d, eth_getBalance %s", sender.Balance, sender.Nonce, &balance)
	}
	// The beacon roots contract was written by the block's pre-execution
	// system call: its pending storage is proven too.
	beacon := n.proof("pending", params.BeaconRootsAddress, "0x0")
	verifyProof(t, *beacon.StateRoot, beacon)
	// A contract created by the pending block, its constructor's storage
	// write included.
	size := byte(len(storeRuntime))
	initWithSlot := append([]byte{0x60, 0x99, 0x60, 0x01, 0x55, 0x60, size, 0x60, 0x11, 0x60, 0x00, 0x39, 0x60, size, 0x60, 0x00, 0xf3}, storeRuntime...)
	created := crypto.CreateAddress(n.addr(3), 0)
	n.send(3, nil, new(big.Int), 200_000, initWithSlot)
	waitFor(t, "the pre-confirmed creation", func() bool {
		n.result(&slot, "eth_getStorageAt", created, "0x1", "pending")
		return slot == common.BigToHash(big.NewInt(0x99)).Hex()
	})
	fresh := n.proof("pending", created, "0x1")
	verifyProof(t, *fresh.StateRoot, fresh)
	if fresh.StorageProof[0].Value.ToInt().Int64() != 0x99 || fresh.CodeHash != crypto.Keccak256Hash(storeRuntime) {
		t.Errorf("pending creation: %+v", fresh)
	}

	// Once sealed, the contract's account is the one the pending proof showed.
	receipt := n.waitSealed(hash)
	number, _ := hexutil.DecodeUint64(receipt["blockNumber"].(string))
	after := n.proof(hexutil.Uint64(number), contract, "0x7")
	verifyProof(t, n.stateRoot(number), after)
	if after.StorageHash != p.StorageHash || !slices.Equal(hexStrings(after.StorageProof[0].Proof), hexStrings(p.StorageProof[0].Proof)) {
		t.Errorf("sealed storage %s differs from the pending proof's %s", after.StorageHash, p.StorageHash)
	}
}

// With no block being built (no block production), pending is latest and
// its proofs carry the head's root.
func TestGetProofPendingWithoutProduction(t *testing.T) {
	n := newTestNode(t, 0, 0)
	p := n.proof("pending", n.addr(0))
	if p.StateRoot == nil || *p.StateRoot != n.stateRoot(0) {
		t.Fatalf("stateRoot %v, want the head's %s", p.StateRoot, n.stateRoot(0))
	}
	verifyProof(t, *p.StateRoot, p)
}

func TestGetProofBadInput(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) { tc.rpc.MaxStorageKeys = 2 })
	addr := n.addr(0).Hex()
	for _, c := range []struct {
		name   string
		params string
		code   int
		msg    string
	}{
		{"too many keys", `["` + addr + `",["0x1","0x2","0x3"],"latest"]`, -32602, "too many storage keys requested (max 2, got 3): --rpc.maxstoragekeys"},
		{"key not hex", `["` + addr + `",["0xzz"],"latest"]`, -32602, `invalid hex in storage key: \"0xzz\"`},
		{"key too long", `["` + addr + `",["0x` + strings.Repeat("1", 65) + `"],"latest"]`, -32602, "storage key too long"},
		{"key not a string", `["` + addr + `",[1],"latest"]`, -32602, "invalid argument 1: json: cannot unmarshal number"},
		{"keys not an array", `["` + addr + `","0x1","latest"]`, -32602, "invalid argument 1"},
		{"keys missing", `["` + addr + `"]`, -32602, "missing value for required argument 1"},
		{"bad address", `["0x1234",[],"latest"]`, -32602, "invalid argument 0: hex string has length 4, want 40 for common.Address"},
		{"unknown block", `["` + addr + `",[],"0xffff"]`, -32000, "header not found"},
		{"unknown hash", `["` + addr + `",[],{"blockHash":"0x` + strings.Repeat("12", 32) + `"}]`, -32000, "header for hash not found"},
		{"bad block", `["` + addr + `",[],"soon"]`, -32602, "invalid argument 2"},
		{"too many params", `["` + addr + `",[],"latest",1]`, -32602, "too many arguments"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := n.raw(`{"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":` + c.params + `}`)
			if !strings.Contains(out, fmt.Sprintf(`"code":%d`, c.code)) || !strings.Contains(out, c.msg) {
				t.Errorf("got %s, want code %d and %q", out, c.code, c.msg)
			}
		})
	}
	// null keys read as none, as in geth; at the cap is fine.
	if resp := n.call("eth_getProof", addr, nil, "latest"); resp.Error != nil {
		t.Errorf("null keys: %+v", resp.Error)
	}
	if resp := n.call("eth_getProof", addr, []string{"0x1", "2"}, "latest"); resp.Error != nil {
		t.Errorf("two keys, 0x optional: %+v", resp.Error)
	}
}

// A full node proves its recent states; an old one answers why not and
// what keeps it. An archive node proves every block.
func TestGetProofOldStates(t *testing.T) {
	for _, mode := range []chain.GCMode{chain.GCFull, chain.GCArchive} {
		t.Run(string(mode), func(t *testing.T) {
			n := newTestNode(t, 2*time.Millisecond, 2*time.Millisecond, func(tc *testConfig) {
				tc.chain.GCMode, tc.chain.StateHistory = mode, 2
			})
			waitFor(t, "140 blocks", func() bool { return n.store.Load().Head.NumberU64() >= 140 })
			resp := n.call("eth_getProof", n.addr(1), []string{}, "0x1")
			if mode == chain.GCArchive {
				if resp.Error != nil {
					t.Fatalf("archive proof at block 1: %+v", resp.Error)
				}
				var p proofResult
				n.result(&p, "eth_getProof", n.addr(1), []string{}, "0x1")
				verifyProof(t, n.stateRoot(1), p)
				return
			}
			t.Logf("full node, block 1: %+v", resp.Error)
			if resp.Error == nil || resp.Error.Code != -32000 || !strings.Contains(resp.Error.Message, "block 1") || !strings.Contains(resp.Error.Message, "--gcmode archive") {
				t.Fatalf("full node's proof at block 1: %+v", resp.Error)
			}
			// A state it still reads (from its state history) but whose
			// trie it no longer has cannot be proven either.
			h := n.chain.BlockChain().GetHeaderByNumber(1)
			if _, err := n.srv.openTries(h); err == nil || !strings.Contains(err.Error(), "proof at block 1: state not available: pruned (a full node proves the states of its last 128 blocks; --gcmode archive") {
				t.Errorf("trie of block 1: %v", err)
			}
			recent := hexutil.Uint64(n.store.Load().Head.NumberU64() - 10)
			var p proofResult
			n.result(&p, "eth_getProof", n.addr(1), []string{}, recent)
			verifyProof(t, n.stateRoot(uint64(recent)), p)
		})
	}
}

// Concurrent pending proofs while the pending state moves on: each
// verifies against the root it reports (run with -race: the rebuilt tries
// are shared).
func TestGetProofPendingConcurrent(t *testing.T) {
	n := newTestNode(t, 150*time.Millisecond, 10*time.Millisecond)
	to := common.HexToAddress("0x00000000000000000000000000000000000000f1")
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			var err error
			defer func() { errs <- err }()
			addrs := []common.Address{to, n.addr(9), n.addr(w), params.BeaconRootsAddress}
			for i := range 40 {
				var resp rpcResponse
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["%s",["0x0"],"pending"]}`, addrs[i%len(addrs)].Hex())
				if err = json.Unmarshal([]byte(n.raw(body)), &resp); err != nil {
					return
				}
				if resp.Error != nil {
					err = fmt.Errorf("pending proof %d: %s", i, resp.Error.Message)
					return
				}
				var p proofResult
				if err = json.Unmarshal(resp.Result, &p); err != nil {
					return
				}
				verifyProof(t, *p.StateRoot, p)
			}
		}()
	}
	for i := range 20 {
		n.sendNonce(9, uint64(i), &to, 1)
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
