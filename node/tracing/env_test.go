package tracing

import (
	"encoding/binary"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/callbound"
)

// The tests run calls on a state of their own, with the tracers built as
// the node builds them.

var (
	testConfig = params.MergedTestChainConfig
	sender     = common.HexToAddress("0x00000000000000000000000000000000000feed0")
	contract   = common.HexToAddress("0x00000000000000000000000000000000000c0de1")
	helper     = common.HexToAddress("0x00000000000000000000000000000000000c0de2")
)

// program is EVM code written with go-ethereum's opcode names: an OpCode
// is itself, an int or uint64 the shortest push of it, a []byte a push of
// those bytes, a label a JUMPDEST, and a jumpTo a PUSH2 of a label's
// offset.
type label string
type jumpTo string

func program(t testing.TB, parts ...any) []byte {
	t.Helper()
	var code []byte
	labels := map[label]int{}
	refs := map[int]label{}
	for _, p := range parts {
		switch p := p.(type) {
		case vm.OpCode:
			code = append(code, byte(p))
		case int:
			code = appendPush(code, uint64(p))
		case uint64:
			code = appendPush(code, p)
		case []byte:
			code = append(append(code, byte(vm.PUSH1)+byte(len(p)-1)), p...)
		case label:
			labels[p] = len(code)
			code = append(code, byte(vm.JUMPDEST))
		case jumpTo:
			refs[len(code)+1] = label(p)
			code = append(code, byte(vm.PUSH2), 0, 0)
		default:
			t.Fatalf("program: %T", p)
		}
	}
	for at, l := range refs {
		to, ok := labels[l]
		if !ok {
			t.Fatalf("program: no label %q", l)
		}
		binary.BigEndian.PutUint16(code[at:], uint16(to))
	}
	return code
}

func appendPush(code []byte, v uint64) []byte {
	if v == 0 {
		return append(code, byte(vm.PUSH0))
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	n := 8
	for b[8-n] == 0 {
		n--
	}
	return append(append(code, byte(vm.PUSH1)+byte(n-1)), b[8-n:]...)
}

// call is a call from sender to contract with gas, on a state that holds
// codes by address.
func call(t testing.TB, codes map[common.Address][]byte, gas uint64) *Call {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	st.SetBalance(sender, uint256.NewInt(1e18), 0)
	for addr, code := range codes {
		st.SetCode(addr, code, 0)
		st.SetNonce(addr, 1, 0)
	}
	to := contract
	msg := &core.Message{From: sender, To: &to, GasLimit: gas, Value: new(uint256.Int),
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int)}
	msg.SkipNonceCheck().SkipGasLimitCapCheck()
	random := common.Hash{1}
	ctx := vm.BlockContext{
		CanTransfer: core.CanTransfer, Transfer: core.Transfer,
		GetHash:     func(uint64) common.Hash { return common.Hash{} },
		BlockNumber: big.NewInt(1), Time: 1, Difficulty: new(big.Int), BaseFee: new(big.Int),
		GasLimit: gas, Random: &random, Coinbase: common.Address{0xc0},
	}
	tx := types.NewTx(&types.LegacyTx{Gas: gas, To: &to, GasPrice: new(big.Int), Value: new(big.Int)})
	return &Call{Msg: msg, Tx: tx, Context: ctx, State: st}
}

// parse is the trace configuration raw, which must be good.
func parse(t testing.TB, raw string) *Config {
	t.Helper()
	cfg, err := ParseConfig([]byte(raw), testConfig)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return cfg
}

// trace runs c under cfg as the node does, with the response's room, on
// one slot of p for caller.
func trace(p *callbound.Bound, caller callbound.Caller, cfg *Config, c *Call, room int) (res []byte, err error) {
	if perr := p.Do(caller, 0, func(task *callbound.Task) {
		res, err = (&Env{Config: testConfig, Task: task}).TraceCall(cfg, c, room)
	}); perr != nil {
		return nil, perr
	}
	return res, err
}

// newPool is a call pool of two slots, closed at the test's end.
func newPool(t testing.TB) *callbound.Bound {
	p := callbound.New(callbound.Config{Workers: 2, Queue: 8})
	t.Cleanup(p.Close)
	return p
}

// gone is a client that has hung up.
type gone struct{}

func (gone) Gone() bool { return true }

// closeWhenRunning closes p from another goroutine once a task runs on
// it, as the node's shutdown does.
func closeWhenRunning(p *callbound.Bound) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if running, _, _, _ := p.Stats(); running > 0 {
				p.Close()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return &wg
}
