package abuse

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
)

// The heavy eth_calls need no deployed contract: each is a contract
// creation (eth_call without "to") whose init code does the work and
// returns. Each program takes a salt that changes the precompile's input,
// so that a result cache (go-ethereum has one for block processing) cannot
// answer a repeated request without doing the work.

// blake2fVector is EIP-152's test vector 5 (12 rounds of "abc"): the
// 209 bytes of BLAKE2F input after the 4-byte round count: the state h (64
// bytes), the message block m ("abc", zero padded to 128 bytes), the
// offset counter t (16 bytes, little endian: 3) and the final-block flag.
var blake2fVector = "48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b" +
	"616263" + strings.Repeat("00", 125) +
	"0300000000000000" + "0000000000000000" +
	"01"

const (
	blake2fAddr    = 0x09
	modexpAddr     = 0x05
	blake2fInLen   = 213
	blake2fOutAt   = 256 // output after the input's seven words
	blake2fSaltPos = 4 + 64 + 64
)

// blake2fInput is the precompile's input: the vector with rounds and the
// salt in the second half of the message block (zero salt: the vector).
func blake2fInput(rounds uint32, salt uint64) []byte {
	vec, err := hex.DecodeString(blake2fVector)
	if err != nil || len(vec) != blake2fInLen-4 {
		panic("blake2f vector") // a constant of this file
	}
	in := binary.BigEndian.AppendUint32(nil, rounds)
	in = append(in, vec...)
	binary.BigEndian.PutUint64(in[blake2fSaltPos:], salt)
	return in
}

// blake2fProgram is init code that calls BLAKE2F once with rounds rounds
// (one gas each) and returns a zero byte and the 64-byte output, or reverts
// when the call fails (out of gas: the server's gas cap is below rounds).
// What init code returns is deployed as code, and code may not begin with
// 0xef (EIP-3541): the leading zero keeps one output in 256 from failing.
//
//	MSTORE the input's words at 0..224
//	STATICCALL(GAS, 0x09, 0, 213, 256, 64)
//	ISZERO JUMPI fail; RETURN(255, 65)
//	fail: REVERT(0, 0)
func blake2fProgram(rounds uint32, salt uint64) []byte {
	a := newAsm()
	storeBytes(a, 0, blake2fInput(rounds, salt))
	a.push(64).push(blake2fOutAt).push(blake2fInLen).push(0).push(blake2fAddr).op(vm.GAS, vm.STATICCALL)
	a.op(vm.ISZERO).jumpi("fail")
	a.push(65).push(blake2fOutAt - 1).op(vm.RETURN)
	a.label("fail").push(0).push(0).op(vm.REVERT)
	return a.mustBytes()
}

// storeBytes writes b to memory at offset, one MSTORE per 32-byte word
// that is not all zero (fresh memory is zero). Bytes after b in its last
// word are zeroed.
func storeBytes(a *asm, offset uint64, b []byte) {
	for i := 0; i < len(b); i += 32 {
		var w [32]byte
		copy(w[:], b[i:])
		if w != ([32]byte{}) {
			a.mstore(offset+uint64(i), w)
		}
	}
}

// modexpShape is the MODEXP attack's input: a base of 8 bytes (varied per
// Call), an exponent of ExpLen bytes of 0xff and an even modulus of ModLen
// bytes (0xff...fe). Measured on go-ethereum v1.17.10 (Prague pricing,
// EIP-2565), a small even modulus with a long exponent costs the most time
// per gas: about 100-150 ns/gas, so 50M gas is 5-7 s of one core, against
// 15 ns/gas for BLAKE2F.
type modexpShape struct {
	ExpLen, ModLen int
}

const modexpBaseLen = 8

// input is the precompile input for a base value.
func (s modexpShape) input(base uint64) []byte {
	in := make([]byte, 96+modexpBaseLen+s.ExpLen+s.ModLen)
	big.NewInt(modexpBaseLen).FillBytes(in[0:32])
	big.NewInt(int64(s.ExpLen)).FillBytes(in[32:64])
	big.NewInt(int64(s.ModLen)).FillBytes(in[64:96])
	binary.BigEndian.PutUint64(in[96:], base)
	for i := 96 + modexpBaseLen; i < len(in); i++ {
		in[i] = 0xff
	}
	in[len(in)-1] = 0xfe
	return in
}

// gas is what one MODEXP call costs.
func (s modexpShape) gas() uint64 {
	return vm.PrecompiledContractsPrague[common.BytesToAddress([]byte{modexpAddr})].RequiredGas(s.input(1 << 63))
}

// modexpProgram is init code that calls MODEXP with shape's input, a new
// base each time, for as long as the gas lasts, and returns how many calls
// it made (one 32-byte word).
//
//	header (three lengths) at 0..96; exponent and modulus: 0xff filled
//	  by doubling MCOPYs, the modulus's last byte 0xfe
//	i = 0
//	loop: if GAS < one call's gas + margin: goto done
//	  MSTORE(104-32, (salt<<16 + i) | 1<<63)   base = the word's last 8 bytes
//	  MSTORE(64, modLen)                        that store clobbered the header's third word
//	  STATICCALL(GAS, 0x05, 0, len, out, modLen); POP
//	  i++; goto loop
//	done: MSTORE(0, i); RETURN(0, 32)
func modexpProgram(s modexpShape, salt uint64) ([]byte, error) {
	if s.ExpLen < 1 || s.ModLen < 1 {
		return nil, fmt.Errorf("modexp: exponent and modulus need at least a byte (have %d, %d)", s.ExpLen, s.ModLen)
	}
	inLen := uint64(96 + modexpBaseLen + s.ExpLen + s.ModLen)
	out := (inLen + 31) / 32 * 32
	// 63/64 of the gas goes into the call: it must still cover the call.
	threshold := s.gas()*64/63 + codeReturnMargin
	a := newAsm()
	a.push(modexpBaseLen).push(0).op(vm.MSTORE)
	a.push(uint64(s.ExpLen)).push(32).op(vm.MSTORE)
	a.push(uint64(s.ModLen)).push(64).op(vm.MSTORE)
	fillOnes(a, 96+modexpBaseLen, uint64(s.ExpLen+s.ModLen))
	a.push(0xfe).push(inLen - 1).op(vm.MSTORE8)
	a.push(0)
	a.label("loop")
	a.push(threshold).op(vm.GAS, vm.LT).jumpi("done")
	a.op(vm.DUP1).push(salt << 16).op(vm.ADD).pushBytes([]byte{0x80, 0, 0, 0, 0, 0, 0, 0}).op(vm.OR)
	a.push(96 + modexpBaseLen - 32).op(vm.MSTORE)
	a.push(uint64(s.ModLen)).push(64).op(vm.MSTORE)
	a.push(uint64(s.ModLen)).push(out).push(inLen).push(0).push(modexpAddr).op(vm.GAS, vm.STATICCALL, vm.POP)
	a.push(1).op(vm.ADD).jump("loop")
	a.label("done").push(0).op(vm.MSTORE).push(32).push(0).op(vm.RETURN)
	return a.bytes()
}

// fillOnes sets n bytes of memory at offset to 0xff: one MSTORE, then
// MCOPYs that double the filled stretch (a 64 KiB exponent is 12 copies).
func fillOnes(a *asm, offset, n uint64) {
	var ones [32]byte
	for i := range ones {
		ones[i] = 0xff
	}
	a.mstore(offset, ones)
	for done := uint64(32); done < n; {
		c := min(done, n-done)
		a.push(c).push(offset).push(offset + done).op(vm.MCOPY) // MCOPY(dst, src, size)
		done += c
	}
}

// codeReturnMargin is gas a program keeps for its end: what init code
// returns is deployed, at 200 gas a byte, and a creation that cannot pay
// for it fails.
const codeReturnMargin = 12_000

// gasBurnKeccaks is how many KECCAK256s of nothing one loop turn hashes:
// with the loop's own opcodes a turn is 8*36+28 gas.
const gasBurnKeccaks = 8

// gasBurnProgram is init code that burns its gas in a plain loop and
// returns how many turns it made. KECCAK256 of zero bytes is the plain
// opcode that measured slowest per gas (about 14 ns/gas, like BLAKE2F):
// 50M gas is about 0.7 s of one core.
//
//	i = 0
//	loop: 8 x KECCAK256(0, 0) POP
//	  i++
//	  if GAS > 12000: goto loop
//	MSTORE(0, i); RETURN(0, 32)
func gasBurnProgram(salt uint64) []byte {
	a := newAsm()
	if salt != 0 {
		a.push(salt).op(vm.POP) // only makes the request differ
	}
	a.push(0)
	a.label("loop")
	for range gasBurnKeccaks {
		a.push(0).push(0).op(vm.KECCAK256, vm.POP)
	}
	a.push(1).op(vm.ADD)
	a.push(codeReturnMargin).op(vm.GAS, vm.GT).jumpi("loop")
	a.push(0).op(vm.MSTORE).push(32).push(0).op(vm.RETURN)
	return a.mustBytes()
}

// logEmitterRuntime emits n LOG0s (no topics, no data), n being the
// calldata's first word: 419 gas per log.
//
//	n = CALLDATALOAD(0)
//	loop: if n == 0: goto done
//	  LOG0(0, 0); n--; goto loop
//	done: STOP
func logEmitterRuntime() []byte {
	a := newAsm()
	a.push(0).op(vm.CALLDATALOAD)
	a.label("loop")
	a.op(vm.DUP1, vm.ISZERO).jumpi("done")
	a.push(0).push(0).op(vm.LOG0)
	a.push(1).op(vm.SWAP1, vm.SUB).jump("loop")
	a.label("done").op(vm.STOP)
	return a.mustBytes()
}

// logEmitterGasPerLog is one turn of logEmitterRuntime's loop.
const logEmitterGasPerLog = 419

// deployCode is init code that deploys runtime:
//
//	CODECOPY(0, 13, len); RETURN(0, len)   (the prefix is 13 bytes)
func deployCode(runtime []byte) []byte {
	const prefix = 13
	a := newAsm()
	n := []byte{byte(len(runtime) >> 8), byte(len(runtime))}
	a.pushBytes(n).pushBytes([]byte{0, prefix}).push(0).op(vm.CODECOPY)
	a.pushBytes(n).push(0).op(vm.RETURN)
	code := a.mustBytes()
	if len(code) != prefix {
		panic(fmt.Sprintf("deployCode prefix is %d bytes", len(code)))
	}
	return append(code, runtime...)
}

// topicLogger is init code that emits one LOG1 with topic and deploys
// nothing: one log in the block of the transaction that runs it.
func topicLogger(topic common.Hash) []byte {
	a := newAsm()
	a.pushBytes(topic[:]).push(0).push(0).op(vm.LOG1, vm.STOP)
	return a.mustBytes()
}
