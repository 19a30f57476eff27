package fixturechain

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// The test contract C, written by hand in EVM bytecode. Its ABI:
//
//	get() view returns (uint256)          slot 0
//	set(uint256 v)                        slot 0 = v, slot 1 = block.number, emits Set(address indexed caller, uint256 v)
//	fail()                                reverts with Error("boom")
//	failSilently()                        reverts with no data
//	emitPair(uint256 a, uint256 b)        emits Pair(uint256 indexed a, uint256 indexed b) with data block.number
//
// Any other input reverts with no data. The constructor sets slot 0 to 1.
var (
	SelGet          = selector("get()")
	SelSet          = selector("set(uint256)")
	SelFail         = selector("fail()")
	SelFailSilently = selector("failSilently()")
	SelEmitPair     = selector("emitPair(uint256,uint256)")

	TopicSet  = crypto.Keccak256Hash([]byte("Set(address,uint256)"))
	TopicPair = crypto.Keccak256Hash([]byte("Pair(uint256,uint256)"))

	// RevertReason is the reason fail() reverts with.
	RevertReason = "boom"
)

func selector(sig string) [4]byte {
	var s [4]byte
	copy(s[:], crypto.Keccak256([]byte(sig)))
	return s
}

// asm is a minimal assembler with forward labels (PUSH2 targets).
type asm struct {
	code   []byte
	labels map[string]int
	fixups map[int]string
}

func newAsm() *asm { return &asm{labels: map[string]int{}, fixups: map[int]string{}} }

func (a *asm) op(ops ...vm.OpCode) *asm {
	for _, o := range ops {
		a.code = append(a.code, byte(o))
	}
	return a
}

// push emits the shortest PUSH of b (PUSH0 for empty/zero).
func (a *asm) push(b []byte) *asm {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) == 0 {
		return a.op(vm.PUSH0)
	}
	a.code = append(a.code, byte(vm.PUSH1)+byte(len(b)-1))
	a.code = append(a.code, b...)
	return a
}

func (a *asm) pushInt(v uint64) *asm {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return a.push(b[:])
}

// pushLabel emits PUSH2 <label>, resolved by bytes.
func (a *asm) pushLabel(name string) *asm {
	a.code = append(a.code, byte(vm.PUSH2), 0, 0)
	a.fixups[len(a.code)-2] = name
	return a
}

func (a *asm) label(name string) *asm {
	a.labels[name] = len(a.code)
	return a.op(vm.JUMPDEST)
}

func (a *asm) bytes() []byte {
	for pos, name := range a.fixups {
		at, ok := a.labels[name]
		if !ok {
			panic("undefined label " + name)
		}
		a.code[pos], a.code[pos+1] = byte(at>>8), byte(at)
	}
	return a.code
}

// RuntimeCode is C's deployed code.
func RuntimeCode() []byte {
	a := newAsm()
	// selector = calldata[0:4]
	a.push(nil).op(vm.CALLDATALOAD).pushInt(0xe0).op(vm.SHR)
	for _, c := range []struct {
		sel   [4]byte
		label string
	}{{SelGet, "get"}, {SelSet, "set"}, {SelFail, "fail"}, {SelFailSilently, "failSilently"}, {SelEmitPair, "emitPair"}} {
		a.op(vm.DUP1).push(c.sel[:]).op(vm.EQ).pushLabel(c.label).op(vm.JUMPI)
	}
	a.push(nil).push(nil).op(vm.REVERT)

	// get(): return slot 0
	a.label("get").push(nil).op(vm.SLOAD).push(nil).op(vm.MSTORE).pushInt(32).push(nil).op(vm.RETURN)

	// set(v): slot0 = v; slot1 = number; log2(v, Set, caller)
	a.label("set").pushInt(4).op(vm.CALLDATALOAD).op(vm.DUP1).push(nil).op(vm.SSTORE)
	a.op(vm.NUMBER).pushInt(1).op(vm.SSTORE)
	a.push(nil).op(vm.MSTORE)
	a.op(vm.CALLER).push(TopicSet[:]).pushInt(32).push(nil).op(vm.LOG2).op(vm.STOP)

	// fail(): revert(Error("boom"))
	a.label("fail")
	reason := RevertData()
	for off := 0; off < len(reason); off += 32 {
		word := make([]byte, 32)
		copy(word, reason[off:])
		a.push(word).pushInt(uint64(off)).op(vm.MSTORE)
	}
	a.pushInt(uint64(len(reason))).push(nil).op(vm.REVERT)

	// failSilently(): revert(0, 0)
	a.label("failSilently").push(nil).push(nil).op(vm.REVERT)

	// emitPair(a, b): log3(number, Pair, a, b)
	a.label("emitPair").op(vm.NUMBER).push(nil).op(vm.MSTORE)
	a.pushInt(0x24).op(vm.CALLDATALOAD).pushInt(4).op(vm.CALLDATALOAD).push(TopicPair[:]).pushInt(32).push(nil).op(vm.LOG3).op(vm.STOP)
	return a.bytes()
}

// InitCode is C's creation code: slot 0 = 1, then return RuntimeCode.
func InitCode() []byte {
	runtime := RuntimeCode()
	a := newAsm()
	a.pushInt(1).push(nil).op(vm.SSTORE)
	// codecopy(0, offset, len); return(0, len). The offset is the length of
	// this prefix, which is fixed: PUSH2 len, PUSH2 offset, PUSH0, CODECOPY,
	// PUSH2 len, PUSH0, RETURN.
	prefix := len(a.code) + 3 + 3 + 1 + 1 + 3 + 1 + 1
	n := []byte{byte(len(runtime) >> 8), byte(len(runtime))}
	a.code = append(a.code, byte(vm.PUSH2), n[0], n[1])
	a.code = append(a.code, byte(vm.PUSH2), byte(prefix>>8), byte(prefix))
	a.op(vm.PUSH0, vm.CODECOPY)
	a.code = append(a.code, byte(vm.PUSH2), n[0], n[1])
	a.op(vm.PUSH0, vm.RETURN)
	if len(a.code) != prefix {
		panic("init code prefix miscounted")
	}
	return append(a.code, runtime...)
}

// RevertData is the ABI encoding of Error("boom").
func RevertData() []byte {
	out := common.FromHex("0x08c379a0")
	out = append(out, common.LeftPadBytes([]byte{0x20}, 32)...)
	out = append(out, common.LeftPadBytes([]byte{byte(len(RevertReason))}, 32)...)
	return append(out, common.RightPadBytes([]byte(RevertReason), 32)...)
}

func word(v uint64) []byte { return common.LeftPadBytes(new(big.Int).SetUint64(v).Bytes(), 32) }

func CallGet() []byte          { return SelGet[:] }
func CallFail() []byte         { return SelFail[:] }
func CallFailSilently() []byte { return SelFailSilently[:] }
func CallSet(v uint64) []byte  { return append(append([]byte{}, SelSet[:]...), word(v)...) }
func CallEmitPair(x, y uint64) []byte {
	return append(append(append([]byte{}, SelEmitPair[:]...), word(x)...), word(y)...)
}
