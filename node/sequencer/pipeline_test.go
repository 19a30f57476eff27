package sequencer

import (
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/node/pending"
)

// blockReader's runtime code stores, at every call, what only the state
// and headers of the two blocks before it can answer:
//
//	sstore(number, blockhash(number-2))       // the grandparent's hash
//	sstore(number+0x10000, sload(number-1))   // what the parent's call stored
var blockReader = common.FromHex("600243034043556001430354436201000001550" + "0")

// deployCode is initcode that returns code.
func deployCode(code []byte) []byte {
	n := byte(len(code))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, code...)
}

// TestFirstPreconfirmationDuringCommit: the next block's first
// pre-confirmation executes while the sealed block is still being
// committed (pipeline.go), reading the sealed block's state from its
// layers and its header from memory. Every block so built must be the
// block a validating node computes from the committed chain.
func TestFirstPreconfirmationDuringCommit(t *testing.T) {
	e := newEnv(t)
	const caller = 2
	deploy := e.tx(caller, 0, nil, new(big.Int), 200_000, deployCode(blockReader))
	contract := crypto.CreateAddress(e.addr(caller), 0)

	var (
		mu     sync.Mutex
		armed  bool
		nonce  uint64 = 1
		called        = map[uint64]common.Hash{} // block sealed when the call was sent -> call
	)
	hooks := testHooks{
		// A call sent as a block is sealed runs in the next block's first
		// pre-confirmation, during the commit the next hook holds up.
		sealing: func(number uint64) {
			mu.Lock()
			defer mu.Unlock()
			if !armed || len(called) == 6 {
				return
			}
			call := e.tx(caller, nonce, &contract, new(big.Int), 100_000, nil)
			if err := e.pool.Add(call); err != nil {
				t.Errorf("add call: %v", err)
				return
			}
			nonce++
			called[number] = call.Hash()
		},
		committing: func() { time.Sleep(30 * time.Millisecond) },
	}
	e.startWith(Config{BlockTime: 80 * time.Millisecond, PreconfInterval: 80 * time.Millisecond, PreconfMinGap: 5 * time.Millisecond}, hooks)
	if err := e.pool.Add(deploy); err != nil {
		t.Fatal(err)
	}
	bc := e.chain.BlockChain()
	e.waitFor("contract deployed", 5*time.Second, func(s *pending.Snapshot) bool {
		acct, _ := s.LatestReader().Account(contract)
		return acct != nil
	})
	mu.Lock()
	armed = true
	mu.Unlock()
	e.waitFor("six calls sealed", 10*time.Second, func(s *pending.Snapshot) bool {
		mu.Lock()
		defer mu.Unlock()
		if len(called) < 6 {
			return false
		}
		for number, hash := range called {
			if b := bc.GetBlockByNumber(number + 1); b == nil || b.NumberU64() > s.Head.NumberU64() || !hasTx(b.Transactions(), hash) {
				return false
			}
		}
		return true
	})

	st, err := e.chain.BlockChain().State()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for sealedNumber, hash := range called {
		n := sealedNumber + 1 // the block the call ran in
		receipt := bc.GetReceiptsByHash(bc.GetCanonicalHash(n))
		if len(receipt) == 0 || receipt[0].TxHash != hash || receipt[0].Status != types.ReceiptStatusSuccessful {
			t.Fatalf("block %d: receipts %v, want the call %s first and successful", n, receipt, hash)
		}
		if got, want := st.GetState(contract, common.BigToHash(new(big.Int).SetUint64(n))), bc.GetCanonicalHash(n-2); got != want {
			t.Errorf("block %d: BLOCKHASH(%d) was %s, want %s", n, n-2, got, want)
		}
		parentStored := st.GetState(contract, common.BigToHash(new(big.Int).SetUint64(n-1)))
		if got := st.GetState(contract, common.BigToHash(new(big.Int).SetUint64(n+0x10000))); got != parentStored {
			t.Errorf("block %d: read %s from the parent's call, it stored %s", n, got, parentStored)
		}
	}
	// The whole chain validates: state roots and receipts are the ones a
	// node executing the blocks on committed state gets.
	replica := newEnv(t).chain
	head := bc.CurrentBlock().Number.Uint64()
	for n := uint64(1); n <= head; n++ {
		if err := replica.Append(bc.GetBlockByNumber(n)); err != nil {
			t.Fatalf("a validating node refuses block %d: %v", n, err)
		}
	}
}

// TestPreconfirmsDuringCommit: while a sealed block is committed, the
// sequencer goes on executing and logging what arrives, and publishes it
// once the commit is over, not at a tick after it.
func TestPreconfirmsDuringCommit(t *testing.T) {
	const (
		gap  = 100 * time.Millisecond
		hold = 500 * time.Millisecond // each commit
	)
	e := newEnv(t)
	journal := &commitWatch{}
	e.journal = journal
	to := common.HexToAddress("0x00000000000000000000000000000000000000ae")
	during := e.transfer(0, 0, to, 1)
	var (
		once     sync.Once
		mu       sync.Mutex
		released time.Time // when the held commit went on
	)
	hooks := testHooks{
		committing: func() {
			journal.holding.Store(true)
			once.Do(func() {
				time.AfterFunc(hold/2, func() {
					if err := e.pool.Add(during); err != nil {
						t.Errorf("add: %v", err)
					}
				})
			})
			time.Sleep(hold)
			journal.holding.Store(false)
			mu.Lock()
			released = time.Now()
			mu.Unlock()
		},
	}
	e.startWith(Config{BlockTime: 3 * time.Second, PreconfInterval: 3 * time.Second, PreconfMinGap: gap}, hooks)
	snap := e.waitFor("transfer pre-confirmed", 6*time.Second, func(s *pending.Snapshot) bool {
		return hasTx(s.Pending.Transactions, during.Hash())
	})
	if !journal.loggedDuringCommit(during.Hash()) {
		t.Fatal("the transfer sent during the commit was logged after it, want it executed and logged while the commit ran")
	}
	mu.Lock()
	defer mu.Unlock()
	switch after := snap.Published.Sub(released); {
	case after < 0:
		t.Fatalf("pre-confirmation published %v before the commit of its parent went on, want after it", -after)
	case after > hold/4:
		t.Errorf("pre-confirmation published %v after the commit went on, want at once", after)
	}
}

// commitWatch is a Journal that notes the transactions it logs while a
// commit is held up.
type commitWatch struct {
	holding atomic.Bool
	mu      sync.Mutex
	during  map[common.Hash]bool
}

func (j *commitWatch) Opened(*types.Header) error                                  { return nil }
func (j *commitWatch) Sealed(*types.Block, types.Receipts) error                   { return nil }
func (j *commitWatch) Reopened(*types.Block, types.Receipts, *pending.Block) error { return nil }

func (j *commitWatch) Preconfirmed(_ *pending.Block, txs types.Transactions) error {
	if !j.holding.Load() {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.during == nil {
		j.during = map[common.Hash]bool{}
	}
	for _, tx := range txs {
		j.during[tx.Hash()] = true
	}
	return nil
}

func (j *commitWatch) loggedDuringCommit(hash common.Hash) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.during[hash]
}
