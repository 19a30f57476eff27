package e2e

import (
	"context"
	"encoding/json"
	"math/big"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// storeRuntime stores calldata word 1 at the slot calldata word 0 names;
// storeInit deploys it.
var (
	storeRuntime = hexutil.MustDecode("0x6020356000355500")
	storeInit    = append(hexutil.MustDecode("0x6008600c60003960086000f3"), storeRuntime...)
)

func storeCall(slot, value uint64) []byte {
	return append(common.BigToHash(new(big.Int).SetUint64(slot)).Bytes(), common.BigToHash(new(big.Int).SetUint64(value)).Bytes()...)
}

// castProof is `cast proof`'s JSON.
type castProof struct {
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
}

func runCast(t *testing.T, cast string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, cast, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("cast %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("cast %s:\n%s", strings.Join(args, " "), truncate(string(out), 400))
	return strings.TrimSpace(string(out))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// verify checks a proof with go-ethereum's trie.VerifyProof against root:
// the account and its fields, each slot and its value.
func (p castProof) verify(t *testing.T, root common.Hash) {
	t.Helper()
	db := func(nodes []hexutil.Bytes) *memorydb.Database {
		db := memorydb.New()
		for _, n := range nodes {
			db.Put(crypto.Keccak256(n), n)
		}
		return db
	}
	leaf, err := trie.VerifyProof(root, crypto.Keccak256(p.Address.Bytes()), db(p.AccountProof))
	if err != nil {
		t.Fatalf("account proof against %s: %v", root, err)
	}
	if leaf == nil {
		if p.Balance.ToInt().Sign() != 0 || p.Nonce != 0 {
			t.Errorf("absent account %s answered %+v", p.Address, p)
		}
		return
	}
	var acct types.StateAccount
	if err := rlp.DecodeBytes(leaf, &acct); err != nil {
		t.Fatal(err)
	}
	if acct.Nonce != uint64(p.Nonce) || acct.Balance.ToBig().Cmp(p.Balance.ToInt()) != 0 || acct.Root != p.StorageHash || common.BytesToHash(acct.CodeHash) != p.CodeHash {
		t.Errorf("account %s: proven %+v, answered %+v", p.Address, acct, p)
	}
	for _, sp := range p.StorageProof {
		if acct.Root == types.EmptyRootHash {
			continue
		}
		enc, err := trie.VerifyProof(acct.Root, crypto.Keccak256(common.HexToHash(sp.Key).Bytes()), db(sp.Proof))
		if err != nil {
			t.Fatalf("slot %s: %v", sp.Key, err)
		}
		var value []byte
		if enc != nil {
			_, value, _, _ = rlp.Split(enc)
		}
		if new(big.Int).SetBytes(value).Cmp(sp.Value.ToInt()) != 0 {
			t.Errorf("slot %s: proven %x, answered %s", sp.Key, value, sp.Value)
		}
	}
}

func decodeCastProof(t *testing.T, out string) castProof {
	t.Helper()
	var p castProof
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("cast proof printed %q: %v", out, err)
	}
	return p
}

// Foundry's `cast proof` and `cast storage` against the binary: the proofs
// cast prints verify against the block's state root, on a block number,
// latest and pending, for an account with storage and one that does not
// exist; go-ethereum's gethclient reads the same proofs.
func TestCastProofAndStorage(t *testing.T) {
	cast := castBinary(t)
	n := startNode(t, "--block-time", "1s", "--preconf-interval", "50ms")
	c, rc := n.dial(t)
	ctx := testContext(t, 2*time.Minute)
	from := devAccount(t, 1)
	deploy := send(t, ctx, c, from, nil, new(big.Int), storeInit)
	contract := waitSealed(t, ctx, c, deploy.Hash()).ContractAddress
	set := waitSealed(t, ctx, c, send(t, ctx, c, from, &contract, new(big.Int), storeCall(5, 0x1234)).Hash())
	number := set.BlockNumber.Uint64()
	header, err := c.HeaderByNumber(ctx, set.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	rpcURL := []string{"--rpc-url", n.URL}
	block := func(b string) []string { return append([]string{"--block", b}, rpcURL...) }

	p := decodeCastProof(t, runCast(t, cast, append([]string{"proof", contract.Hex(), "5", "6"}, block(big.NewInt(int64(number)).String())...)...))
	p.verify(t, header.Root)
	atBlock := make([]string, len(p.AccountProof))
	for i, n := range p.AccountProof {
		atBlock[i] = n.String()
	}
	if len(p.StorageProof) != 2 || p.StorageProof[0].Value.ToInt().Int64() != 0x1234 || p.StorageProof[1].Value.ToInt().Sign() != 0 {
		t.Errorf("cast proof's slots: %+v", p.StorageProof)
	}
	if p.CodeHash != crypto.Keccak256Hash(storeRuntime) {
		t.Errorf("code hash %s", p.CodeHash)
	}

	// latest: the root is one of the blocks' since.
	p = decodeCastProof(t, runCast(t, cast, append([]string{"proof", contract.Hex(), "5"}, rpcURL...)...))
	provenAt(t, ctx, c, number, crypto.Keccak256Hash(p.AccountProof[0]))
	p.verify(t, crypto.Keccak256Hash(p.AccountProof[0]))

	absent := common.HexToAddress("0x00000000000000000000000000000000deadbeef")
	p = decodeCastProof(t, runCast(t, cast, append([]string{"proof", absent.Hex(), "1"}, block(big.NewInt(int64(number)).String())...)...))
	p.verify(t, header.Root)

	// pending: a write visible before its block seals, proven against the
	// pending root that eth_getProof reports (cast prints the EIP-1186
	// fields only).
	pendingTx := send(t, ctx, c, from, &contract, new(big.Int), storeCall(6, 0x66))
	poll(t, ctx, "the pre-confirmed write", func() bool {
		v, err := c.PendingStorageAt(ctx, contract, common.BigToHash(big.NewInt(6)))
		return err == nil && new(big.Int).SetBytes(v).Int64() == 0x66
	})
	var reported struct {
		StateRoot common.Hash `json:"stateRoot"`
	}
	if err := rc.CallContext(ctx, &reported, "eth_getProof", contract, []string{"0x6"}, "pending"); err != nil {
		t.Fatal(err)
	}
	p = decodeCastProof(t, runCast(t, cast, append([]string{"proof", contract.Hex(), "6"}, block("pending")...)...))
	proven := crypto.Keccak256Hash(p.AccountProof[0])
	if _, err := c.TransactionReceipt(ctx, pendingTx.Hash()); err != nil && proven != reported.StateRoot {
		t.Errorf("cast's pending proof is of root %s, eth_getProof(pending) reports %s", proven, reported.StateRoot)
	}
	p.verify(t, proven)
	if p.StorageProof[0].Value.ToInt().Int64() != 0x66 {
		t.Errorf("pending slot 6 = %s", p.StorageProof[0].Value)
	}

	// cast storage: eth_getStorageAt, at latest and at a block before the write.
	word := runCast(t, cast, append([]string{"storage", contract.Hex(), "5"}, rpcURL...)...)
	if word != common.BigToHash(big.NewInt(0x1234)).Hex() {
		t.Errorf("cast storage = %s", word)
	}
	word = runCast(t, cast, append([]string{"storage", contract.Hex(), "5"}, block(big.NewInt(int64(number-1)).String())...)...)
	if word != (common.Hash{}).Hex() {
		t.Errorf("cast storage before the write = %s", word)
	}

	// go-ethereum's own client reads the same proof.
	gp, err := gethclient.New(rc).GetProof(ctx, contract, []string{"0x5"}, set.BlockNumber)
	if err != nil {
		t.Fatalf("gethclient GetProof: %v", err)
	}
	if strings.Join(gp.AccountProof, ",") != strings.Join(atBlock, ",") || gp.StorageProof[0].Value.Int64() != 0x1234 {
		t.Errorf("gethclient's proof differs from cast's: %+v", gp)
	}
}

// provenAt finds root among the state roots of the blocks from number on.
func provenAt(t *testing.T, ctx context.Context, c *ethclient.Client, number uint64, root common.Hash) {
	t.Helper()
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for b := head; b >= number; b-- {
		h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(b))
		if err != nil {
			t.Fatal(err)
		}
		if h.Root == root {
			return
		}
	}
	t.Fatalf("root %s is no block's state root since %d", root, number)
}

// The proof, storage, raw and config methods over HTTP, with bad input:
// each bad request answers -32602 (or geth's code) and the node goes on.
func TestProofAndRawMethodsOverHTTP(t *testing.T) {
	n := startNode(t, "--rpc.maxstoragekeys", "4")
	c, rc := n.dial(t)
	ctx := testContext(t, time.Minute)
	acct := devAccount(t, 0).addr
	poll(t, ctx, "a block", func() bool { b, err := c.BlockNumber(ctx); return err == nil && b > 0 })
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}

	var raw hexutil.Bytes
	if err := rc.CallContext(ctx, &raw, "debug_getRawHeader", hexutil.EncodeBig(head.Number)); err != nil {
		t.Fatal(err)
	}
	var h types.Header
	if err := rlp.DecodeBytes(raw, &h); err != nil || h.Hash() != head.Hash() {
		t.Errorf("debug_getRawHeader decodes to %s, want %s (%v)", h.Hash(), head.Hash(), err)
	}
	fee, err := c.BlobBaseFee(ctx)
	if err != nil || fee.Int64() != 1 {
		t.Errorf("eth_blobBaseFee = %v, %v", fee, err)
	}
	var config map[string]json.RawMessage
	if err := rc.CallContext(ctx, &config, "eth_config"); err != nil || len(config["current"]) < 10 {
		t.Errorf("eth_config = %v, %v", config, err)
	}
	var values map[common.Address][]hexutil.Bytes
	if err := rc.CallContext(ctx, &values, "eth_getStorageValues", map[common.Address][]common.Hash{acct: {{}}}, "latest"); err != nil || len(values[acct]) != 1 {
		t.Errorf("eth_getStorageValues = %v, %v", values, err)
	}

	for _, bad := range []struct {
		method string
		params []any
		code   int
	}{
		{"eth_getProof", []any{acct, []string{"0x1", "0x2", "0x3", "0x4", "0x5"}, "latest"}, -32602},
		{"eth_getProof", []any{acct, []string{"0xnothex"}, "latest"}, -32602},
		{"eth_getProof", []any{"0xbad", []string{}, "latest"}, -32602},
		{"eth_getProof", []any{acct, []string{}, "0xffffffff"}, -32000},
		{"eth_getStorageValues", []any{map[string][]string{acct.Hex(): {"0x1", "0x2", "0x3", "0x4", "0x5"}}}, -38026},
		{"eth_getStorageValues", []any{map[string][]string{}}, -32602},
		{"debug_getRawBlock", []any{"soon"}, -32602},
		{"debug_getRawTransaction", []any{"0x12"}, -32602},
		{"txpool_contentFrom", []any{"0x12"}, -32602},
	} {
		var out any
		err := rc.CallContext(ctx, &out, bad.method, bad.params...)
		var rpcErr interface{ ErrorCode() int }
		if err == nil || !asRPCError(err, &rpcErr) || rpcErr.ErrorCode() != bad.code {
			t.Errorf("%s%v = %v, %v; want error %d", bad.method, bad.params, out, err, bad.code)
		}
	}
	if _, err := c.BlockNumber(ctx); err != nil {
		t.Fatalf("the node stopped answering: %v", err)
	}
}

func asRPCError(err error, target *interface{ ErrorCode() int }) bool {
	e, ok := err.(interface{ ErrorCode() int })
	if ok {
		*target = e
	}
	return ok
}
