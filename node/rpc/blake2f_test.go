package rpc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// blake2FInput encodes EIP-152's input: rounds, h, m, t, final.
func blake2FInput(rounds uint32, rng *rand.Rand, final byte) []byte {
	in := make([]byte, blake2FInputLength)
	binary.BigEndian.PutUint32(in, rounds)
	for i := 4; i < 212; i++ {
		in[i] = byte(rng.UintN(256))
	}
	in[212] = final
	return in
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The interruptible BLAKE2F answers exactly as go-ethereum's, errors and
// gas included: EIP-152's test vectors, then random inputs.
func TestBlake2FMatchesGeth(t *testing.T) {
	geth := vm.PrecompiledContractsPrague[blake2FAddress]
	ours := &blake2F{evm: vm.NewEVM(vm.BlockContext{}, nil, params.TestChainConfig, vm.Config{})}
	const vector = "48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b61626300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000300000000000000000000000000000001"
	inputs := [][]byte{
		nil,
		mustHex(t, "00000c"+vector), // EIP-152 vector 1: wrong length
		mustHex(t, "0000000c"+vector[:len(vector)-2]+"02"), // vector 3: bad final flag
		mustHex(t, "00000000"+vector),                      // vector 4: 0 rounds
		mustHex(t, "0000000c"+vector),                      // vector 5: 12 rounds
		mustHex(t, "0000000c"+vector[:len(vector)-2]+"00"), // vector 6: not final
		mustHex(t, "00000001"+vector),                      // vector 7: 1 round
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		inputs = append(inputs, blake2FInput(uint32(rng.UintN(3*stopEvery)), rng, byte(rng.UintN(2))))
	}
	for i, in := range inputs {
		if g, o := geth.RequiredGas(in), ours.RequiredGas(in); g != o {
			t.Fatalf("input %d: gas %d, geth %d", i, o, g)
		}
		want, wantErr := geth.Run(in)
		got, err := ours.Run(in)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("input %d: got %x, %v; geth %x, %v", i, got, err, want, wantErr)
		}
	}
}

// A cancelled call stops inside the precompile: 2^32-1 rounds would take
// over a minute.
func TestBlake2FStopsWhenCancelled(t *testing.T) {
	evm := vm.NewEVM(vm.BlockContext{}, nil, params.TestChainConfig, vm.Config{})
	evm.Cancel()
	in := blake2FInput(^uint32(0), rand.New(rand.NewPCG(3, 4)), 1)
	if _, err := (&blake2F{evm: evm}).Run(in); !errors.Is(err, errBlake2FAborted) {
		t.Fatalf("Run on a cancelled EVM = %v, want %v", err, errBlake2FAborted)
	}
}

// Every EVM the server runs a call on gets the interruptible BLAKE2F, and
// the set goes back for the next call.
func TestCallPrecompilesInstalled(t *testing.T) {
	var c callPrecompiles
	evm := vm.NewEVM(vm.BlockContext{BlockNumber: new(big.Int), Random: &common.Hash{}}, nil, params.MergedTestChainConfig, vm.Config{})
	set := c.install(evm)
	b, ok := set.contracts[blake2FAddress].(*blake2F)
	if !ok || b.evm != evm {
		t.Fatalf("BLAKE2F of the installed set = %T bound to %p, want *blake2F bound to %p", set.contracts[blake2FAddress], b, evm)
	}
	if len(set.contracts) != len(vm.ActivePrecompiles(evm.GetRules())) {
		t.Fatalf("installed %d precompiles, the fork has %d", len(set.contracts), len(vm.ActivePrecompiles(evm.GetRules())))
	}
	set.release()
	if b.evm != nil {
		t.Fatal("released set still holds its EVM")
	}
}

// BenchmarkBlake2F compares the interruptible BLAKE2F with go-ethereum's
// assembly, per round.
func BenchmarkBlake2F(b *testing.B) {
	const rounds = 1 << 16
	in := blake2FInput(rounds, rand.New(rand.NewPCG(5, 6)), 1)
	evm := vm.NewEVM(vm.BlockContext{}, nil, params.TestChainConfig, vm.Config{})
	for _, bench := range []struct {
		name string
		p    vm.PrecompiledContract
	}{{"geth", vm.PrecompiledContractsPrague[blake2FAddress]}, {"interruptible", &blake2F{evm: evm}}} {
		b.Run(bench.name, func(b *testing.B) {
			for b.Loop() {
				bench.p.Run(in)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rounds), "ns/round")
		})
	}
}
