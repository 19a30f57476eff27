package rpc

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/pool"
)

// eth_getProof (EIP-1186) in the shape geth's GetProof answers: the account
// and storage values with the trie nodes from the state root down to them,
// so a client can check them against a root it trusts without trusting the
// node. Values are read from the tries the proofs come from, so they never
// disagree with the proofs.

// accountProof is EIP-1186's answer. An account that does not exist reads
// as zero, zero code hash and zero storage hash, as geth answers.
type accountProof struct {
	Address      common.Address `json:"address"`
	AccountProof []string       `json:"accountProof"`
	Balance      *hexutil.Big   `json:"balance"`
	CodeHash     common.Hash    `json:"codeHash"`
	Nonce        hexutil.Uint64 `json:"nonce"`
	StorageHash  common.Hash    `json:"storageHash"`
	StorageProof []storageProof `json:"storageProof"`
	// StateRoot is set for the pending block only: the root of the
	// pre-confirmed state, which the proofs verify against and which no
	// header carries yet (a stocknode extension; see proof_pending.go).
	StateRoot *common.Hash `json:"stateRoot,omitempty"`
}

type storageProof struct {
	Key   string       `json:"key"`
	Value *hexutil.Big `json:"value"`
	Proof []string     `json:"proof"`
}

// proofList collects a proof's trie nodes in order, as hex.
type proofList []string

func (l *proofList) Put(_, value []byte) error {
	*l = append(*l, hexutil.Encode(value))
	return nil
}

func (l *proofList) Delete([]byte) error { return errors.New("proofList: delete not supported") }

// proofKey is a requested storage key and how the answer spells it.
type proofKey struct {
	slot common.Hash
	out  string
}

// proofTries are the tries of one state that proofs are taken from.
type proofTries struct {
	db       state.Database
	openRoot common.Hash // the state whose trie nodes storage tries open
	root     common.Hash // the root the proofs verify against
	accounts state.Trie
	rebuilt  map[common.Address]state.Trie // storage tries changed by pending transactions; nil: none
}

func ethGetProof(s *Server, r *request) error {
	if err := r.maxParams(3); err != nil {
		return err
	}
	addr, err := r.address(0)
	if err != nil {
		return err
	}
	keys, err := s.proofKeys(r, 1)
	if err != nil {
		return err
	}
	bp, err := r.blockParam(2)
	if err != nil {
		return err
	}
	var result *accountProof
	var proveErr error
	if err := s.bounded(r, func(task *pool.Task) { result, proveErr = s.proveIn(task, r, bp, addr, keys) }); err != nil {
		return err
	}
	if proveErr != nil {
		return proveErr
	}
	return r.writeJSON(result)
}

// proveIn proves addr and keys in the state bp names.
func (s *Server) proveIn(task *pool.Task, r *request, bp codec.BlockParam, addr common.Address, keys []proofKey) (*accountProof, error) {
	if bp.Tag != codec.TagPending {
		h, err := s.header(r, bp)
		if err != nil {
			return nil, err
		}
		return s.proveAt(task, h, addr, keys)
	}
	if building(r.snap) {
		return s.provePending(task, r.snap, addr, keys)
	}
	// No block is being built: pending is latest.
	out, err := s.proveAt(task, r.snap.HeadHeader, addr, keys)
	if err == nil {
		root := r.snap.HeadHeader.Root
		out.StateRoot = &root
	}
	return out, err
}

// proveAt proves addr and keys in the state after the sealed block h.
func (s *Server) proveAt(task *pool.Task, h *types.Header, addr common.Address, keys []proofKey) (*accountProof, error) {
	tries, err := s.openTries(h)
	if err != nil {
		return nil, err
	}
	return s.prove(task, tries, addr, keys)
}

// openTries opens the account trie of the state after block h. A full
// node keeps the trie nodes of its most recent states only: older states,
// even those it still reads from its state history, cannot be proven.
func (s *Server) openTries(h *types.Header) (*proofTries, error) {
	db := s.b.Chain.StateDatabase()
	tr, err := db.OpenTrie(h.Root)
	if err == nil {
		return &proofTries{db: db, openRoot: h.Root, root: h.Root, accounts: tr}, nil
	}
	if s.b.Chain.GCMode() != chain.GCFull {
		return nil, fmt.Errorf("state of block %d: %w", h.Number, err)
	}
	// The path database keeps historical trie nodes only when told to
	// (trie node history); try it before giving up.
	historic := state.NewHistoricDatabase(s.b.Chain.BlockChain().TrieDB(), s.b.Chain.BlockChain().CodeDB())
	if tr, herr := historic.OpenTrie(h.Root); herr == nil {
		return &proofTries{db: historic, openRoot: h.Root, root: h.Root, accounts: tr}, nil
	}
	return nil, fmt.Errorf("proof at block %d: %w (a full node proves the states of its last %d blocks; --gcmode archive proves every block)",
		h.Number, chain.ErrStatePruned, inMemoryTries)
}

// inMemoryTries is the number of recent states whose tries the path
// database holds above the persisted one (pathdb's maxDiffLayers).
const inMemoryTries = 128

// storageTrie opens addr's storage trie with root, or returns nil when the
// account has no storage.
func (t *proofTries) storageTrie(addr common.Address, root common.Hash) (state.Trie, error) {
	if tr, ok := t.rebuilt[addr]; ok {
		return tr, nil
	}
	if root == types.EmptyRootHash || root == (common.Hash{}) {
		return nil, nil
	}
	return t.db.OpenStorageTrie(t.openRoot, addr, root, t.accounts)
}

// prove reads addr and keys from the tries with their proofs. The tries
// are the caller's alone while it runs.
func (s *Server) prove(task *pool.Task, t *proofTries, addr common.Address, keys []proofKey) (*accountProof, error) {
	acct, err := t.accounts.GetAccount(addr)
	if err != nil {
		return nil, fmt.Errorf("read account %s: %w", addr.Hex(), err)
	}
	out := &accountProof{Address: addr, Balance: new(hexutil.Big), StorageProof: make([]storageProof, len(keys))}
	if err := t.accounts.Prove(crypto.Keccak256(addr.Bytes()), (*proofList)(&out.AccountProof)); err != nil {
		return nil, fmt.Errorf("prove account %s: %w", addr.Hex(), err)
	}
	var storage state.Trie
	if acct != nil {
		out.Balance = (*hexutil.Big)(acct.Balance.ToBig())
		out.CodeHash = common.BytesToHash(acct.CodeHash)
		out.Nonce = hexutil.Uint64(acct.Nonce)
		out.StorageHash = acct.Root
		if len(keys) > 0 {
			if storage, err = t.storageTrie(addr, acct.Root); err != nil {
				return nil, fmt.Errorf("open the storage of %s: %w", addr.Hex(), err)
			}
		}
	}
	for i, key := range keys {
		if err := task.Err(); err != nil {
			return nil, s.aborted(err)
		}
		if out.StorageProof[i], err = proveSlot(storage, addr, key); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// proveSlot reads and proves one slot of a storage trie (nil: no storage).
func proveSlot(storage state.Trie, addr common.Address, key proofKey) (storageProof, error) {
	p := storageProof{Key: key.out, Value: new(hexutil.Big), Proof: []string{}}
	if storage == nil {
		return p, nil
	}
	value, err := storage.GetStorage(addr, key.slot.Bytes())
	if err != nil {
		return p, fmt.Errorf("read slot %s of %s: %w", key.slot.Hex(), addr.Hex(), err)
	}
	p.Value.ToInt().SetBytes(value)
	if err := storage.Prove(crypto.Keccak256(key.slot.Bytes()), (*proofList)(&p.Proof)); err != nil {
		return p, fmt.Errorf("prove slot %s of %s: %w", key.slot.Hex(), addr.Hex(), err)
	}
	return p, nil
}

// proofKeys parses argument i, the storage keys, as geth does: at most
// MaxStorageKeys, each checked before any state is read.
func (s *Server) proofKeys(r *request, i int) ([]proofKey, error) {
	if i >= r.nargs {
		return nil, &invalidParamsError{fmt.Errorf("missing value for required argument %d", i)}
	}
	raw := r.arg(i)
	if raw == nil {
		return nil, nil // null: no keys, as geth reads it
	}
	n, err := countArray(raw)
	if err != nil {
		return nil, argError(i, err)
	}
	if limit := s.cfg.MaxStorageKeys; limit > 0 && n > limit {
		return nil, &invalidParamsError{fmt.Errorf("too many storage keys requested (max %d, got %d): --rpc.maxstoragekeys raises the cap", limit, n)}
	}
	keys := make([]proofKey, 0, n)
	it, _ := codec.Array(raw)
	for it.Next() {
		if it.Value()[0] != '"' {
			return nil, argError(i, errors.New("json: cannot unmarshal "+kindOf(it.Value())+" into Go value of type string"))
		}
		key, err := parseProofKey(it.Value())
		if err != nil {
			return nil, &invalidParamsError{err}
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// countArray counts the elements of a JSON array, checking its syntax.
func countArray(raw []byte) (int, error) {
	it, err := codec.Array(raw)
	if err != nil {
		return 0, errors.New("json: cannot unmarshal " + kindOf(raw) + " into Go value of type []string")
	}
	n := 0
	for it.Next() {
		n++
	}
	return n, it.Err()
}

// parseProofKey decodes a storage key leniently, as geth does (0x
// optional, odd length, at most 32 bytes), and spells it in the answer as
// geth does: a 32-byte key as given, a shorter one as a quantity.
func parseProofKey(raw []byte) (proofKey, error) {
	s := string(raw[1 : len(raw)-1])
	digits := s
	if strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
		digits = digits[2:]
	}
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	if len(digits) > 2*common.HashLength {
		return proofKey{}, fmt.Errorf("storage key too long (want at most 32 bytes): %q", s)
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return proofKey{}, fmt.Errorf("invalid hex in storage key: %q", s)
	}
	key := proofKey{slot: common.BytesToHash(b)}
	if len(b) == common.HashLength {
		key.out = hexutil.Encode(b)
	} else {
		key.out = hexutil.EncodeBig(key.slot.Big())
	}
	return key, nil
}

// kindOf names a JSON value's kind as encoding/json's errors do.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	default:
		return "number"
	}
}
