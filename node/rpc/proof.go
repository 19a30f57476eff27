package rpc

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/node/chain"
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
	if err := s.bounded(r, func(task *callbound.Task) { result, proveErr = s.proveIn(task, r, bp, addr, keys) }); err != nil {
		return err
	}
	if proveErr != nil {
		return proveErr
	}
	return r.writeJSON(result)
}

// proveIn proves addr and keys in the state bp names.
func (s *Server) proveIn(task *callbound.Task, r *request, bp codec.BlockParam, addr common.Address, keys []proofKey) (*accountProof, error) {
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
func (s *Server) proveAt(task *callbound.Task, h *types.Header, addr common.Address, keys []proofKey) (*accountProof, error) {
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
func (s *Server) prove(task *callbound.Task, t *proofTries, addr common.Address, keys []proofKey) (*accountProof, error) {
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
