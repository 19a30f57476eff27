package contracts

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/chainconfig"
)

// testChain runs transactions against a state made from Predeploys(), one
// block per transaction, with the chain's fork rules (Prague, no Osaka). It
// goes through core.ApplyMessage, so gas figures include the intrinsic gas of
// a real transaction.
type testChain struct {
	t      *testing.T
	cfg    *params.ChainConfig
	state  *state.StateDB
	number uint64
	time   uint64
	txs    uint64
}

// result is the outcome of one transaction or call.
type result struct {
	gasUsed uint64
	ret     []byte // return data, or revert data when failed
	failed  bool
	logs    []*types.Log
}

const testChainID = 84538453

func pragueConfig() *params.ChainConfig { return chainconfig.Prague(big.NewInt(testChainID)) }

func newTestChain(t *testing.T) *testChain {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	for addr, acc := range Predeploys() {
		st.SetCode(addr, acc.Code, tracing.CodeChangeGenesis)
		st.SetNonce(addr, acc.Nonce, tracing.NonceChangeGenesis)
		for k, v := range acc.Storage {
			st.SetState(addr, k, v)
		}
	}
	st.Finalise(params.Rules{})
	return &testChain{t: t, cfg: pragueConfig(), state: st, number: 1, time: 1_767_225_600}
}

func (c *testChain) blockContext() vm.BlockContext {
	random := common.Hash{1}
	return vm.BlockContext{
		CanTransfer: core.CanTransfer,
		Transfer:    core.Transfer,
		GetHash:     func(n uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(n)) },
		Coinbase:    common.Address{0xc0},
		GasLimit:    30_000_000,
		BlockNumber: new(big.Int).SetUint64(c.number),
		Time:        c.time,
		Difficulty:  new(big.Int),
		BaseFee:     new(big.Int),
		BlobBaseFee: new(big.Int),
		Random:      &random,
	}
}

func (c *testChain) rules() params.Rules {
	return c.cfg.Rules(new(big.Int).SetUint64(c.number), true, c.time)
}

// apply runs data from → to as a transaction (commit) or as a call whose
// effects are dropped (!commit).
func (c *testChain) apply(from, to common.Address, data []byte, commit bool) *result {
	c.t.Helper()
	c.txs++
	var hash common.Hash
	binary.BigEndian.PutUint64(hash[24:], c.txs)
	snapshot := c.state.Snapshot()
	c.state.SetTxContext(hash, 0, 0)
	msg := &core.Message{
		From:      from,
		To:        &to,
		Nonce:     c.state.GetNonce(from),
		Value:     new(uint256.Int),
		GasLimit:  15_000_000,
		GasPrice:  new(uint256.Int),
		GasFeeCap: new(uint256.Int),
		GasTipCap: new(uint256.Int),
		Data:      data,
	}
	if c.state.GetCodeSize(from) != 0 {
		msg.SkipEOACheck() // a contract as the caller, to test what it may do
	}
	evm := vm.NewEVM(c.blockContext(), c.state, c.cfg, vm.Config{})
	res, err := core.ApplyMessage(evm, msg, core.NewGasPool(30_000_000))
	if err != nil {
		c.t.Fatalf("transaction not applicable: %v", err)
	}
	out := &result{gasUsed: res.UsedGas, failed: res.Failed(), ret: res.ReturnData}
	if commit {
		out.logs = c.state.GetLogs(hash, c.number, common.Hash{}, c.time)
		c.state.Finalise(c.rules())
		c.number++
		c.time += 2
	} else {
		c.state.RevertToSnapshot(snapshot)
	}
	return out
}

// tx sends a transaction calling method on a contract of artifact a at to,
// and fails the test unless it succeeds.
func (c *testChain) tx(from, to common.Address, a *Artifact, method string, args ...any) *result {
	c.t.Helper()
	r := c.apply(from, to, pack(c.t, a, method, args...), true)
	if r.failed {
		c.t.Fatalf("%s.%s reverted: %s", a.Name, method, describeRevert(r.ret))
	}
	return r
}

// txRaw sends a transaction with raw calldata and returns its result.
func (c *testChain) txRaw(from, to common.Address, data []byte) *result {
	c.t.Helper()
	return c.apply(from, to, data, true)
}

// reverts sends a transaction calling method and fails the test unless it
// reverts with custom error wantErr of artifact errs (the contract that
// declares it) and, when given, exactly these error arguments.
func (c *testChain) reverts(from, to common.Address, a *Artifact, errs *Artifact, wantErr string, wantArgs []any, method string, args ...any) {
	c.t.Helper()
	r := c.apply(from, to, pack(c.t, a, method, args...), true)
	expectError(c.t, r, errs, wantErr, wantArgs, a.Name+"."+method)
}

// expectError fails the test unless r reverted with custom error wantErr of
// artifact errs (and wantArgs, if not nil).
func expectError(t *testing.T, r *result, errs *Artifact, wantErr string, wantArgs []any, what string) {
	t.Helper()
	if !r.failed {
		t.Fatalf("%s succeeded, want revert %s", what, wantErr)
	}
	e, ok := errs.ABI.Errors[wantErr]
	if !ok {
		t.Fatalf("%s declares no error %s", errs.Name, wantErr)
	}
	if len(r.ret) < 4 || !bytes.Equal(r.ret[:4], e.ID[:4]) {
		t.Fatalf("%s reverted with %s, want %s", what, describeRevert(r.ret), wantErr)
	}
	if wantArgs == nil {
		return
	}
	got, err := e.Inputs.Unpack(r.ret[4:])
	if err != nil {
		t.Fatalf("%s: decoding %s: %v", what, wantErr, err)
	}
	if !equalValues(got, wantArgs) {
		t.Fatalf("%s reverted %s%v, want %s%v", what, wantErr, got, wantErr, wantArgs)
	}
}

// read calls a view method and returns its unpacked outputs.
func (c *testChain) read(to common.Address, a *Artifact, method string, args ...any) []any {
	c.t.Helper()
	r := c.apply(common.Address{0xee}, to, pack(c.t, a, method, args...), false)
	if r.failed {
		c.t.Fatalf("%s.%s reverted: %s", a.Name, method, describeRevert(r.ret))
	}
	out, err := a.ABI.Unpack(method, r.ret)
	if err != nil {
		c.t.Fatalf("%s.%s: unpack: %v", a.Name, method, err)
	}
	return out
}

func (c *testChain) readBool(to common.Address, a *Artifact, method string, args ...any) bool {
	c.t.Helper()
	return c.read(to, a, method, args...)[0].(bool)
}

func (c *testChain) readBig(to common.Address, a *Artifact, method string, args ...any) *big.Int {
	c.t.Helper()
	return c.read(to, a, method, args...)[0].(*big.Int)
}

func pack(t *testing.T, a *Artifact, method string, args ...any) []byte {
	t.Helper()
	data, err := a.ABI.Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s.%s: %v", a.Name, method, err)
	}
	return data
}

// event is one decoded log.
type event map[string]any

// events decodes the logs of r that emitter emitted as event name of artifact a.
func events(t *testing.T, r *result, emitter common.Address, a *Artifact, name string) []event {
	t.Helper()
	ev, ok := a.ABI.Events[name]
	if !ok {
		t.Fatalf("%s declares no event %s", a.Name, name)
	}
	var out []event
	for _, l := range r.logs {
		if l.Address != emitter || len(l.Topics) == 0 || l.Topics[0] != ev.ID {
			continue
		}
		m := event{}
		if err := ev.Inputs.UnpackIntoMap(m, l.Data); err != nil {
			t.Fatalf("event %s: %v", name, err)
		}
		var indexed abi.Arguments
		for _, in := range ev.Inputs {
			if in.Indexed {
				indexed = append(indexed, in)
			}
		}
		if err := abi.ParseTopicsIntoMap(m, indexed, l.Topics[1:]); err != nil {
			t.Fatalf("event %s topics: %v", name, err)
		}
		out = append(out, m)
	}
	return out
}

// oneEvent returns the only event name in r, failing otherwise.
func oneEvent(t *testing.T, r *result, emitter common.Address, a *Artifact, name string) event {
	t.Helper()
	evs := events(t, r, emitter, a, name)
	if len(evs) != 1 {
		t.Fatalf("got %d %s events, want 1", len(evs), name)
	}
	return evs[0]
}

// logOrder returns the names of r's events in order, decoded with the ABIs given.
func logOrder(r *result, abis ...*Artifact) []string {
	var names []string
	for _, l := range r.logs {
		name := "?"
		for _, a := range abis {
			if ev, err := a.ABI.EventByID(l.Topics[0]); err == nil {
				name = ev.Name
				break
			}
		}
		names = append(names, name)
	}
	return names
}

// describeRevert names a revert payload by the custom errors of all artifacts.
func describeRevert(data []byte) string {
	if len(data) < 4 {
		return "empty revert"
	}
	for _, name := range []string{B20Asset, B20Stablecoin, B20Factory, PolicyRegistry, ActivationRegistry, TokenSupplyManager} {
		a := MustLoad(name)
		for _, e := range a.ABI.Errors {
			if bytes.Equal(e.ID[:4], data[:4]) {
				args, _ := e.Inputs.Unpack(data[4:])
				return e.Name + formatArgs(args)
			}
		}
	}
	if bytes.Equal(data[:4], panicSelector) {
		return "Panic(" + new(big.Int).SetBytes(data[4:]).String() + ")"
	}
	return common.Bytes2Hex(data)
}

var panicSelector = crypto.Keccak256([]byte("Panic(uint256)"))[:4]

func formatArgs(args []any) string {
	var b bytes.Buffer
	b.WriteString("(")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		switch v := a.(type) {
		case [32]byte:
			b.WriteString(common.Hash(v).Hex())
		case []byte:
			b.WriteString("0x" + common.Bytes2Hex(v))
		default:
			fmt.Fprint(&b, v)
		}
	}
	b.WriteString(")")
	return b.String()
}

// equalValues compares decoded ABI values, big integers by value.
func equalValues(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if gb, ok := g.(*big.Int); ok {
			wb, ok := w.(*big.Int)
			if !ok || gb.Cmp(wb) != 0 {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			return false
		}
	}
	return true
}
