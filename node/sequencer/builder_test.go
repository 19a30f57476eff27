package sequencer

import (
	"bytes"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

var (
	// initcode: SSTORE(0, 42); SSTORE(1, 7); return runtime "return SLOAD(0)".
	storeInitCode = hexutil.MustDecode("0x602a6000556007600155600b6016600039600b6000f3" + "60005460005260206000f3")
	// initcode: SELFDESTRUCT(CALLER): created and destroyed in one transaction.
	selfDestructInitCode = hexutil.MustDecode("0x33ff")
)

// The pending layers a builder publishes tick by tick read exactly what the
// sealed block's state holds: balances, nonces, code (deployed and EIP-7702
// delegations), storage, and accounts that no longer exist.
func TestPendingLayersMatchSealedState(t *testing.T) {
	e := newEnv(t)
	parent := e.chain.BlockChain().CurrentBlock()
	b, err := openBlock(e.chain, e.chain.BlockChain().GetBlockByHash(parent.Hash()), nil, uint64(time.Now().Unix()), e.addr(9), chain30M)
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	contract := crypto.CreateAddress(e.addr(0), 1)
	destructed := crypto.CreateAddress(e.addr(1), 0)

	// Tick 1: a transfer.
	mustApply(t, b, e.transfer(0, 0, to, 1000))
	_, layer1 := b.preconfirm()

	// Tick 2: a deployment with storage, a contract gone within its creating
	// transaction, an EIP-7702 delegation.
	mustApply(t, b, e.tx(0, 1, nil, new(big.Int), 200_000, storeInitCode))
	mustApply(t, b, e.tx(1, 0, nil, big.NewInt(5), 100_000, selfDestructInitCode))
	mustApply(t, b, e.setCode(2, 3, contract))
	_, layer2 := b.preconfirm()

	block, err := b.seal()
	if err != nil {
		t.Fatal(err)
	}
	// Committed as the sequencer does, without re-execution; a replica that
	// executes and validates it (InsertChain) agrees.
	if err := e.chain.Commit(block, b.receipts, b.state); err != nil {
		t.Fatal(err)
	}
	if err := newEnv(t).chain.Append(block); err != nil {
		t.Fatalf("a validating chain refuses the block: %v", err)
	}
	sealed, err := e.chain.BlockChain().StateAt(block.Root(), block.Number(), block.Time())
	if err != nil {
		t.Fatal(err)
	}
	checked := []common.Address{e.addr(0), e.addr(1), e.addr(2), e.addr(3), e.addr(9), to, contract, destructed, params.BeaconRootsAddress, params.HistoryStorageAddress}
	for _, addr := range checked {
		compareAccount(t, layer2, sealed, addr)
	}
	for _, slot := range []common.Hash{{}, common.BigToHash(big.NewInt(1)), common.BigToHash(big.NewInt(2))} {
		compareSlot(t, layer2, sealed, contract, slot)
	}
	historySlot := common.BigToHash(new(big.Int).SetUint64(parent.Number.Uint64() % params.HistoryServeWindow))
	compareSlot(t, layer2, sealed, params.HistoryStorageAddress, historySlot)

	// The older layer still shows the state after tick 1 only.
	if acct, _ := layer1.Account(contract); acct != nil {
		t.Fatalf("tick-1 layer sees the contract deployed in tick 2")
	}
	if got := balance(t, layer1, to); got.Cmp(big.NewInt(1000)) != 0 {
		t.Fatalf("tick-1 balance = %v, want 1000", got)
	}
	// A pending StateDB runs the deployed code.
	st, err := state.NewWithReader(parent.Root, e.chain.StateDatabase(), layer2)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.GetState(contract, common.Hash{}); got != common.BigToHash(big.NewInt(42)) {
		t.Fatalf("pending StateDB slot 0 = %v, want 42", got)
	}
}

const chain30M = 30_000_000

func mustApply(t *testing.T, b *builder, tx *types.Transaction) {
	t.Helper()
	if err := b.apply(tx); err != nil {
		t.Fatalf("apply %x: %v", tx.Hash(), err)
	}
	if r := b.receipts[len(b.receipts)-1]; r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("tx %x failed", tx.Hash())
	}
}

// setCode signs a set-code transaction from dev account `from` delegating
// dev account `authority` to target.
func (e *env) setCode(from, authority int, target common.Address) *types.Transaction {
	e.t.Helper()
	auth, err := types.SignSetCode(e.keys[authority], types.SetCodeAuthorization{
		ChainID: *uint256.MustFromBig(e.chain.Config().ChainID),
		Address: target,
		Nonce:   0,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	to := e.addr(from)
	tx, err := types.SignNewTx(e.keys[from], types.LatestSigner(e.chain.Config()), &types.SetCodeTx{
		ChainID:   uint256.MustFromBig(e.chain.Config().ChainID),
		Nonce:     0,
		GasTipCap: uint256.NewInt(params.GWei),
		GasFeeCap: uint256.NewInt(10 * params.GWei),
		Gas:       100_000,
		To:        to,
		Value:     new(uint256.Int),
		AuthList:  []types.SetCodeAuthorization{auth},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tx
}

func compareAccount(t *testing.T, layer state.Reader, sealed *state.StateDB, addr common.Address) {
	t.Helper()
	got, err := layer.Account(addr)
	if err != nil {
		t.Fatal(err)
	}
	if !sealed.Exist(addr) {
		if got != nil {
			t.Errorf("%s: pending has an account, sealed state has none", addr)
		}
		return
	}
	if got == nil {
		t.Errorf("%s: pending has no account, sealed state has one", addr)
		return
	}
	if got.Nonce != sealed.GetNonce(addr) || got.Balance.Cmp(sealed.GetBalance(addr)) != 0 {
		t.Errorf("%s: pending nonce %d balance %v, sealed nonce %d balance %v", addr, got.Nonce, got.Balance, sealed.GetNonce(addr), sealed.GetBalance(addr))
	}
	codeHash := common.BytesToHash(got.CodeHash)
	if codeHash != sealed.GetCodeHash(addr) {
		t.Errorf("%s: pending code hash %s, sealed %s", addr, codeHash, sealed.GetCodeHash(addr))
	}
	if code := layer.Code(addr, codeHash); !bytes.Equal(code, sealed.GetCode(addr)) {
		t.Errorf("%s: pending code %x, sealed %x", addr, code, sealed.GetCode(addr))
	}
}

func compareSlot(t *testing.T, layer state.Reader, sealed *state.StateDB, addr common.Address, slot common.Hash) {
	t.Helper()
	got, err := layer.Storage(addr, slot)
	if err != nil {
		t.Fatal(err)
	}
	if want := sealed.GetState(addr, slot); got != want {
		t.Errorf("%s slot %s: pending %s, sealed %s", addr, slot, got, want)
	}
}
