package abuse

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/runtime"

	"github.com/stocknode/stocknode/node/chain"
)

// runCreate runs init code as eth_call without "to" does (a contract
// creation) on the preview network's rules and returns what it returned,
// the gas it used, the logs and the error.
func runCreate(t *testing.T, code []byte, gas uint64) ([]byte, uint64, []*types.Log, error) {
	t.Helper()
	db, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	cfg := &runtime.Config{ChainConfig: chain.PreviewConfig(), GasLimit: gas, BlockNumber: big.NewInt(1), State: db}
	ret, _, left, err := runtime.Create(code, cfg)
	return ret, gas - left, db.Logs(), err
}

// EIP-152 test vector 5: 12 rounds of "abc".
const blake2fVector5Out = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"

func TestBlake2fProgram(t *testing.T) {
	ret, _, _, err := runCreate(t, blake2fProgram(12, 0), 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := hex.DecodeString("00" + blake2fVector5Out); !bytes.Equal(ret, want) {
		t.Fatalf("12 rounds of the vector returned %x, want a zero byte and EIP-152's output", ret)
	}
	salted, _, _, err := runCreate(t, blake2fProgram(12, 7), 1_000_000)
	if err != nil || bytes.Equal(salted, ret) {
		t.Fatalf("a salt must change the input: %x, %v", salted, err)
	}
	// Rounds cost one gas each: 2M rounds use 2M gas and a little.
	const rounds = 2_000_000
	_, used, _, err := runCreate(t, blake2fProgram(rounds, 1), 3_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if used < rounds || used > rounds+20_000 {
		t.Fatalf("%d rounds used %d gas, want %d and a little", rounds, used, rounds)
	}
	// Below the rounds' gas the precompile refuses and the program reverts.
	if _, _, _, err := runCreate(t, blake2fProgram(rounds, 1), rounds/2); !errors.Is(err, vm.ErrExecutionReverted) {
		t.Fatalf("with too little gas: %v, want a revert", err)
	}
}

func TestModexpProgram(t *testing.T) {
	if got := (modexpShape{ExpLen: 65536, ModLen: 8}).gas(); got != 174_762 {
		t.Fatalf("a 64 KiB exponent, 8-byte modulus costs %d gas, want EIP-2565's 174762", got)
	}
	s := modexpShape{ExpLen: 1024, ModLen: 8}
	perCall := s.gas() // 2730
	const limit = 3_000_000
	code, err := modexpProgram(s, 3)
	if err != nil {
		t.Fatal(err)
	}
	ret, used, _, err := runCreate(t, code, limit)
	if err != nil {
		t.Fatal(err)
	}
	calls := new(big.Int).SetBytes(ret).Uint64()
	// Every call was charged the precompile's price, the loop ran until the
	// gas could not pay for one more, and a turn's own opcodes are cheap.
	if calls < limit/(perCall+300) || calls > limit/perCall {
		t.Fatalf("%d calls of %d gas in %d gas", calls, perCall, limit)
	}
	if used < limit-perCall*2-codeReturnMargin || used > limit {
		t.Fatalf("used %d of %d gas: the loop must burn the gas", used, limit)
	}
	if _, err := modexpProgram(modexpShape{ExpLen: 0, ModLen: 8}, 0); err == nil {
		t.Fatal("an empty exponent was accepted")
	}
}

// The input the program builds in memory is the one modexpShape describes:
// the program's first call, run on its own, gets the precompile's answer.
func TestModexpInput(t *testing.T) {
	s := modexpShape{ExpLen: 40, ModLen: 8}
	in := s.input(1<<63 | 5)
	if len(in) != 96+8+40+8 || in[len(in)-1] != 0xfe || in[96+8] != 0xff {
		t.Fatalf("input %x", in)
	}
	p := vm.PrecompiledContractsPrague[common.BytesToAddress([]byte{modexpAddr})]
	out, err := p.Run(in)
	if err != nil || len(out) != 8 {
		t.Fatalf("modexp: %x, %v", out, err)
	}
}

func TestGasBurnProgram(t *testing.T) {
	const limit = 10_000_000
	ret, used, _, err := runCreate(t, gasBurnProgram(9), limit)
	if err != nil {
		t.Fatal(err)
	}
	turns := new(big.Int).SetBytes(ret).Uint64()
	const turnGas = gasBurnKeccaks*36 + 28
	if used < limit-codeReturnMargin-turnGas || used > limit {
		t.Fatalf("used %d of %d gas", used, limit)
	}
	if turns < (limit-codeReturnMargin-10_000)/turnGas || turns > limit/turnGas {
		t.Fatalf("%d turns of %d gas in %d gas", turns, turnGas, used)
	}
}

func TestLogEmitter(t *testing.T) {
	db, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	cfg := &runtime.Config{ChainConfig: chain.PreviewConfig(), GasLimit: 10_000_000, BlockNumber: big.NewInt(1), State: db}
	code, addr, _, err := runtime.Create(deployCode(logEmitterRuntime()), cfg)
	if err != nil || !bytes.Equal(code, logEmitterRuntime()) || !bytes.Equal(db.GetCode(addr), code) {
		t.Fatalf("deploy: %x, %v", code, err)
	}
	const n = 100
	before := len(db.Logs())
	_, left, err := runtime.Call(addr, common.LeftPadBytes(big.NewInt(n).Bytes(), 32), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(db.Logs()) - before; got != n {
		t.Fatalf("%d logs, want %d", got, n)
	}
	used := cfg.GasLimit - left
	if used < n*logEmitterGasPerLog || used > n*logEmitterGasPerLog+200 {
		t.Fatalf("%d logs used %d gas, want %d each and a little", n, used, logEmitterGasPerLog)
	}
}

func TestTopicLogger(t *testing.T) {
	topic := common.HexToHash("0xabcdef")
	_, _, logs, err := runCreate(t, topicLogger(topic), 100_000)
	if err != nil || len(logs) != 1 || len(logs[0].Topics) != 1 || logs[0].Topics[0] != topic {
		t.Fatalf("logs %v, %v", logs, err)
	}
}

func TestAsmLabels(t *testing.T) {
	a := newAsm()
	a.jump("end").push(0x1234).label("end").op(vm.STOP)
	code, err := a.bytes()
	if err != nil {
		t.Fatal(err)
	}
	// PUSH2 0x0007 JUMP PUSH2 0x1234 JUMPDEST STOP
	if want := "61000756611234" + "5b00"; hex.EncodeToString(code) != want {
		t.Fatalf("code %x, want %s", code, want)
	}
	if _, err := newAsm().jump("nowhere").bytes(); err == nil {
		t.Fatal("an undefined label was accepted")
	}
}
