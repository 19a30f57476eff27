package callstate

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/node/chain"
)

var (
	probeAddr    = common.HexToAddress("0x1000000000000000000000000000000000000001")
	reverterAddr = common.HexToAddress("0x1000000000000000000000000000000000000002")
	doomedAddr   = common.HexToAddress("0x1000000000000000000000000000000000000003") // self-destructs when called
	coldAddr     = common.HexToAddress("0x2000000000000000000000000000000000000001") // an EOA with a balance
	revertedAddr = common.HexToAddress("0x2000000000000000000000000000000000000002") // warmed by a reverted frame
	heirAddr     = common.HexToAddress("0x2000000000000000000000000000000000000003")
	payeeAddr    = common.HexToAddress("0x2000000000000000000000000000000000000004")
	richSender   = common.HexToAddress("0x3000000000000000000000000000000000000001")
	coinbase     = common.HexToAddress("0x4000000000000000000000000000000000000001")
)

// recorder builds a probe program that writes every value it observes to
// consecutive memory words and returns them all.
type recorder struct {
	p *program.Program
	n int
}

// save stores the value on top of the stack in the next word.
func (r *recorder) save() {
	r.p.Push(32 * r.n).Op(vm.MSTORE)
	r.n++
}

// gas records the gas left, so that differences between two records show
// what the operations between them cost (cold or warm).
func (r *recorder) gas() { r.p.Op(vm.GAS); r.save() }

func (r *recorder) code() []byte {
	r.p.Return(0, 32*r.n)
	return r.p.Bytes()
}

// probeCode observes everything a reused State must present as fresh: the
// warm set (accounts and slots, including what a reverted frame warmed),
// storage written by an earlier call, transient storage, accounts created,
// destroyed or paid by an earlier call, and the caller's account.
func probeCode() []byte {
	r := &recorder{p: program.New()}
	// Cold, then warm account access.
	r.gas()
	r.p.Push(coldAddr).Op(vm.BALANCE)
	r.save()
	r.gas()
	r.p.Push(coldAddr).Op(vm.BALANCE).Op(vm.POP)
	r.gas()
	// Cold, then warm slot; its value must be the committed one.
	r.p.Push(5).Op(vm.SLOAD)
	r.save()
	r.gas()
	r.p.Push(5).Op(vm.SLOAD).Op(vm.POP)
	r.gas()
	r.p.Sstore(5, 77)
	// Transient storage must start empty.
	r.p.Push(1).Op(vm.TLOAD)
	r.save()
	r.p.Tstore(1, 9)
	// A frame that warms an account and a slot and reverts: both are cold
	// again afterwards.
	r.p.Call(nil, reverterAddr, 0, 0, 0, 0, 0)
	r.save()
	r.gas()
	r.p.Push(revertedAddr).Op(vm.BALANCE).Op(vm.POP)
	r.gas()
	// Precompiles are warm.
	r.p.Push(1).Op(vm.BALANCE).Op(vm.POP)
	r.gas()
	r.p.Push(coinbase).Op(vm.EXTCODESIZE).Op(vm.POP)
	r.gas()
	// A contract created by an earlier call does not exist.
	r.p.Create2([]byte{0x60, 0x00, 0x60, 0x00, 0xf3}, 42)
	r.save()
	// The caller's account.
	r.p.Op(vm.CALLER).Op(vm.BALANCE)
	r.save()
	r.p.Op(vm.CALLER).Op(vm.EXTCODEHASH)
	r.save()
	// Other calls' senders: absent from the state, they stay absent.
	r.p.Push(0).Op(vm.EXTCODEHASH)
	r.save()
	r.p.Push(revertedAddr).Op(vm.EXTCODEHASH)
	r.save()
	r.p.Push(revertedAddr).Op(vm.BALANCE)
	r.save()
	// A contract destroyed by an earlier call is back with its balance.
	r.p.Push(doomedAddr).Op(vm.BALANCE)
	r.save()
	r.p.Push(heirAddr).Op(vm.BALANCE)
	r.save()
	r.p.Call(nil, doomedAddr, 0, 0, 0, 0, 0)
	r.save()
	r.p.Push(doomedAddr).Op(vm.BALANCE)
	r.save()
	// A payment made by an earlier call is undone.
	r.p.Push(payeeAddr).Op(vm.BALANCE)
	r.save()
	r.p.Call(nil, payeeAddr, 1, 0, 0, 0, 0)
	r.save()
	r.p.Op(vm.SELFBALANCE)
	r.save()
	r.p.Push(0).Push(0).Op(vm.LOG0)
	r.gas()
	return r.code()
}

func reverterCode() []byte {
	p := program.New()
	p.Push(revertedAddr).Op(vm.BALANCE).Op(vm.POP)
	p.Push(3).Op(vm.SLOAD).Op(vm.POP)
	p.Tstore(1, 1)
	p.Op(vm.PUSH0, vm.PUSH0, vm.REVERT)
	return p.Bytes()
}

// testState commits the probe's world and returns its root and database.
func testState(t *testing.T) (common.Hash, state.Database) {
	t.Helper()
	db := state.NewDatabaseForTesting()
	st, err := state.New(types.EmptyRootHash, db)
	if err != nil {
		t.Fatal(err)
	}
	st.SetCode(probeAddr, probeCode(), tracing.CodeChangeUnspecified)
	st.SetBalance(probeAddr, uint256.NewInt(1000), tracing.BalanceChangeUnspecified)
	st.SetState(probeAddr, common.BigToHash(big.NewInt(5)), common.BigToHash(big.NewInt(55)))
	st.SetCode(reverterAddr, reverterCode(), tracing.CodeChangeUnspecified)
	st.SetCode(doomedAddr, program.New().Selfdestruct(heirAddr).Bytes(), tracing.CodeChangeUnspecified)
	st.SetBalance(doomedAddr, uint256.NewInt(500), tracing.BalanceChangeUnspecified)
	st.SetBalance(coldAddr, uint256.NewInt(7), tracing.BalanceChangeUnspecified)
	st.SetBalance(richSender, uint256.NewInt(1e18), tracing.BalanceChangeUnspecified)
	cfg := chain.PreviewConfig()
	root, err := st.Commit(cfg.Rules(common.Big0, true, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	return root, db
}

func blockContext() vm.BlockContext {
	return vm.BlockContext{
		CanTransfer: core.CanTransfer,
		Transfer:    core.Transfer,
		GetHash:     func(uint64) common.Hash { return common.Hash{} },
		Coinbase:    coinbase,
		BlockNumber: big.NewInt(1),
		Time:        1,
		Difficulty:  common.Big0,
		BaseFee:     big.NewInt(params.InitialBaseFee),
		BlobBaseFee: common.Big1,
		GasLimit:    30_000_000,
		Random:      &common.Hash{},
	}
}

func messages() []*core.Message {
	msg := func(from common.Address, value uint64, list types.AccessList) *core.Message {
		to := probeAddr
		m := &core.Message{
			From: from, To: &to, GasLimit: 1_000_000, Value: uint256.NewInt(value),
			GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
			AccessList: list,
		}
		m.SkipNonceCheck()
		m.SkipEOACheck()
		return m
	}
	warm := types.AccessList{{Address: coldAddr}, {Address: probeAddr, StorageKeys: []common.Hash{common.BigToHash(big.NewInt(5))}}}
	return []*core.Message{
		msg(common.Address{}, 0, nil),  // the default sender, absent from the state
		msg(richSender, 0, nil),        // an existing sender
		msg(richSender, 3, nil),        // with value
		msg(common.Address{}, 0, warm), // with an access list
		msg(revertedAddr, 0, warm[1:]), // a sender warmed by the reverted frame
		msg(common.Address{}, 5, nil),  // cannot pay the value: fails before execution
		msg(richSender, 0, types.AccessList{{Address: common.BytesToAddress([]byte{1}), StorageKeys: []common.Hash{{1}}}}), // a slot on a precompile
	}
}

type outcome struct {
	used uint64
	err  string
	ret  []byte
}

func apply(t *testing.T, db vm.StateDB, msg *core.Message) outcome {
	t.Helper()
	evm := vm.NewEVM(blockContext(), db, chain.PreviewConfig(), vm.Config{NoBaseFee: true})
	defer evm.Release()
	m := *msg
	res, err := core.ApplyMessage(evm, &m, core.NewGasPool(math.MaxUint64))
	if err != nil {
		return outcome{err: err.Error()}
	}
	o := outcome{used: res.UsedGas, ret: res.ReturnData}
	if res.Err != nil {
		o.err = res.Err.Error()
	}
	return o
}

// Every call on a reused State answers exactly as on a fresh StateDB: same
// return data (which records warm and cold costs and every state effect an
// earlier call could leak), same gas, same error.
func TestReusedStateAnswersAsFresh(t *testing.T) {
	root, db := testState(t)
	want := make([]outcome, len(messages()))
	for i, msg := range messages() {
		fresh, err := state.New(root, db)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = apply(t, fresh, msg)
	}
	if want[0].err != "" || len(want[0].ret) < 32*20 {
		t.Fatalf("probe did not run: %+v", want[0])
	}
	if want[5].err == "" {
		t.Fatal("the unfunded value call succeeded")
	}
	reader, err := db.Reader(root)
	if err != nil {
		t.Fatal(err)
	}
	pool := NewPool(root, db, reader)
	// The pool's States serve every message three times over, in order and
	// reversed, so each call follows others that changed the state or came
	// from another sender.
	order := []int{}
	for round := 0; round < 3; round++ {
		for i := range want {
			if round == 1 {
				i = len(want) - 1 - i
			}
			order = append(order, i)
		}
	}
	for _, i := range order {
		msg := messages()[i]
		st, err := pool.Get(msg.From)
		if err != nil {
			t.Fatal(err)
		}
		got := apply(t, st, msg)
		if st.warm.geth {
			t.Fatal("the preview chain's rules fell back to go-ethereum's access list")
		}
		if got.used != want[i].used || got.err != want[i].err || !bytes.Equal(got.ret, want[i].ret) {
			t.Fatalf("message %d on a reused State:\n got  %s\n want %s", i, got, want[i])
		}
		pool.Put(st)
	}
}

func (o outcome) String() string {
	return fmt.Sprintf("gas %d err %q ret %x", o.used, o.err, o.ret)
}

// States from one pool serve concurrent calls (run with -race).
func TestPoolConcurrentCalls(t *testing.T) {
	root, db := testState(t)
	fresh, err := state.New(root, db)
	if err != nil {
		t.Fatal(err)
	}
	want := apply(t, fresh, messages()[0])
	reader, err := db.Reader(root)
	if err != nil {
		t.Fatal(err)
	}
	pool := NewPool(root, db, reader)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				st, err := pool.Get(messages()[0].From)
				if err != nil {
					errs <- err.Error()
					return
				}
				got := apply(t, st, messages()[0])
				pool.Put(st)
				if got.used != want.used || !bytes.Equal(got.ret, want.ret) {
					errs <- fmt.Sprintf("got %s, want %s", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// A Warm over a hooked StateDB runs messages one after another, as a block
// is traced, exactly as go-ethereum's own warm set does: every probe
// message in turn on one state, then the same on a Warm, compared message
// by message.
func TestWarmAnswersAsGeth(t *testing.T) {
	root, db := testState(t)
	plain, err := state.New(root, db)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := state.New(root, db)
	if err != nil {
		t.Fatal(err)
	}
	warm := NewWarm(state.NewHookedState(wrapped, &tracing.Hooks{}))
	ctx := blockContext()
	rules := chain.PreviewConfig().Rules(ctx.BlockNumber, true, ctx.Time)
	for round := 0; round < 2; round++ {
		for i, msg := range messages() {
			want := apply(t, plain, msg)
			plain.Finalise(rules)
			got := apply(t, warm, msg)
			wrapped.Finalise(rules)
			if got.used != want.used || got.err != want.err || !bytes.Equal(got.ret, want.ret) {
				t.Fatalf("round %d, message %d on a Warm:\n got  %s\n want %s", round, i, got, want)
			}
		}
	}
	if warm.warm.geth {
		t.Fatal("the preview chain's rules fell back to go-ethereum's access list")
	}
}
