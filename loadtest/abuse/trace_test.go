package abuse

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/runtime"

	"github.com/stocknode/stocknode/node/chain"
)

// The keccak loop hashes a megabyte a turn, with a new turn number in its
// first word when distinct, until its gas runs out.
func TestKeccakLoopProgram(t *testing.T) {
	for _, distinct := range []bool{true, false} {
		var sizes []uint64
		firstWords := map[common.Hash]bool{}
		hooks := &tracing.Hooks{OnOpcode: func(_ uint64, op byte, _, _ uint64, scope tracing.OpContext, _ []byte, _ int, _ error) {
			if vm.OpCode(op) != vm.KECCAK256 {
				return
			}
			stack := scope.StackData()
			sizes = append(sizes, stack[len(stack)-2].Uint64())
			firstWords[common.BytesToHash(scope.MemoryData()[:min(32, len(scope.MemoryData()))])] = true
		}}
		db, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
		if err != nil {
			t.Fatal(err)
		}
		cfg := &runtime.Config{ChainConfig: chain.PreviewConfig(), GasLimit: 10_000_000, BlockNumber: big.NewInt(1), State: db,
			EVMConfig: vm.Config{Tracer: hooks}}
		if _, _, err := runtime.Execute(keccakLoopProgram(distinct), nil, cfg); err != vm.ErrOutOfGas {
			t.Fatalf("distinct %v: %v, want out of gas", distinct, err)
		}
		// 10M gas: 2.2M to grow memory to a megabyte, then 197k a turn.
		if len(sizes) < 35 || len(sizes) > 41 || sizes[0] != 1<<20 {
			t.Fatalf("distinct %v: %d KECCAK256s, the first of %d bytes", distinct, len(sizes), sizes[0])
		}
		if distinct && len(firstWords) != len(sizes) || !distinct && len(firstWords) != 1 {
			t.Errorf("distinct %v: %d different first words in %d preimages", distinct, len(firstWords), len(sizes))
		}
	}
}

// trace-crash passes on a node that answers the timeouts and stops the
// trace whose client left, and finds the node that dies of them.
func TestAbuseTraceCrash(t *testing.T) {
	for _, crash := range []bool{false, true} {
		node := newFakeNode(t)
		node.tracesCrash = crash
		cfg := testAbuseConfig(t, node.url)
		cfg.Metrics = node.metrics
		cfg.Attacks = "trace-crash"
		r := findResult(t, runAbuseTest(t, cfg), "trace-crash")
		if node.traces.Load() != 3 {
			t.Errorf("crash %v: %d traces, want the two timeouts and the hang-up", crash, node.traces.Load())
		}
		switch {
		case !crash && (!r.Pass || !hasLine(r.Details, `under keccak256PreimageTracer: "execution timeout"`) ||
			!hasLine(r.Details, "stopped") || !hasLine(r.Details, "its client gone after 500ms")):
			t.Errorf("a node that answers:\n%s", r.notes())
		case crash && (r.Pass || !hasLine(r.Unexpected, "timeout 1ms under keccak256PreimageTracer: no answer") ||
			!hasLine(r.Unexpected, "timeout 1ms under muxTracer over it: no answer")):
			t.Errorf("a node that does not:\n%s", r.notes())
		}
	}
}

// trace-memory keeps four traces running and says how each was answered.
func TestAbuseTraceMemory(t *testing.T) {
	node := newFakeNode(t)
	cfg := testAbuseConfig(t, node.url)
	cfg.Attacks = "trace-memory"
	r := findResult(t, runAbuseTest(t, cfg), "trace-memory")
	for _, want := range []string{"erc7562Tracer (distinct preimages)", "erc7562Tracer (equal preimages)",
		"keccak256PreimageTracer (distinct preimages)", "keccak256PreimageTracer (equal preimages)"} {
		if !hasLine(r.Details, want+", repeated for 300ms: ") {
			t.Errorf("no %s in:\n%s", want, r.notes())
		}
	}
	if !hasLine(r.Details, "first failure: trace larger than") || node.traces.Load() < 4 {
		t.Errorf("%d traces:\n%s", node.traces.Load(), r.notes())
	}
}
