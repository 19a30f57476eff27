package abuse

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/ethereum/go-ethereum/core/vm"
)

// asm writes EVM bytecode by hand: the abuse attacks' programs are a few
// dozen instructions each, and writing them with go-ethereum's opcode names
// keeps them readable without a compiler. Jumps name labels; every label
// reference is a PUSH2, patched when the program is finished.
type asm struct {
	code   []byte
	labels map[string]int
	refs   []labelRef
}

type labelRef struct {
	at    int // offset of the PUSH2's two bytes
	label string
}

func newAsm() *asm { return &asm{labels: map[string]int{}} }

// op appends opcodes that take no immediate.
func (a *asm) op(ops ...vm.OpCode) *asm {
	for _, o := range ops {
		a.code = append(a.code, byte(o))
	}
	return a
}

// push appends the shortest push of v (PUSH0 for zero).
func (a *asm) push(v uint64) *asm {
	if v == 0 {
		return a.op(vm.PUSH0)
	}
	n := (bits.Len64(v) + 7) / 8
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return a.pushBytes(b[8-n:])
}

// pushBytes appends PUSHn of b (1 to 32 bytes) as it is, leading zeros kept.
func (a *asm) pushBytes(b []byte) *asm {
	if len(b) == 0 || len(b) > 32 {
		panic(fmt.Sprintf("asm: push of %d bytes", len(b))) // a bug in a program, not an input
	}
	a.code = append(a.code, byte(vm.PUSH1)+byte(len(b)-1))
	a.code = append(a.code, b...)
	return a
}

// mstore writes the 32-byte word at memory offset.
func (a *asm) mstore(offset uint64, word [32]byte) *asm {
	return a.pushBytes(word[:]).push(offset).op(vm.MSTORE)
}

// label marks the next instruction as a jump target (a JUMPDEST).
func (a *asm) label(name string) *asm {
	if _, dup := a.labels[name]; dup {
		panic("asm: label " + name + " defined twice")
	}
	a.labels[name] = len(a.code)
	return a.op(vm.JUMPDEST)
}

// pushLabel pushes a label's offset, known once the program is done.
func (a *asm) pushLabel(name string) *asm {
	a.code = append(a.code, byte(vm.PUSH2))
	a.refs = append(a.refs, labelRef{at: len(a.code), label: name})
	a.code = append(a.code, 0, 0)
	return a
}

func (a *asm) jump(name string) *asm  { return a.pushLabel(name).op(vm.JUMP) }
func (a *asm) jumpi(name string) *asm { return a.pushLabel(name).op(vm.JUMPI) }

// bytes resolves the labels and returns the program.
func (a *asm) bytes() ([]byte, error) {
	out := append([]byte(nil), a.code...)
	for _, r := range a.refs {
		at, ok := a.labels[r.label]
		if !ok {
			return nil, fmt.Errorf("asm: undefined label %q", r.label)
		}
		if at > 0xffff {
			return nil, fmt.Errorf("asm: label %q at %d is beyond PUSH2", r.label, at)
		}
		binary.BigEndian.PutUint16(out[r.at:], uint16(at))
	}
	return out, nil
}

// mustBytes is bytes for programs whose labels are fixed in the source: an
// error there is a bug in this package.
func (a *asm) mustBytes() []byte {
	b, err := a.bytes()
	if err != nil {
		panic(err)
	}
	return b
}
