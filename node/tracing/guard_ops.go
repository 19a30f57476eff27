package tracing

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/holiman/uint256"
)

// The tracers that record at opcodes: the preimages of KECCAK256
// (keccak256PreimageTracer, erc7562Tracer), erc7562Tracer's per-frame
// state, and the struct logger's logs.

// memoryPadLimit is how far past memory go-ethereum's tracers pad a
// preimage with zeros (eth/tracers/internal); further, they copy nothing.
const memoryPadLimit = 1 << 20

// preimage is what the tracers copy for a KECCAK256 with stack on top:
// see copied.
func preimage(stack []uint256.Int, mem []byte) (inMem []byte, size int, ok bool) {
	if len(stack) < 2 {
		return nil, 0, false
	}
	return copied(mem, stack[len(stack)-1].Uint64(), stack[len(stack)-2].Uint64())
}

// copied is what go-ethereum's tracers copy of memory at offset and size
// as they read them from the stack (internal.GetMemoryCopyPadded): the
// part in memory, and the size with the zeros that pad it; false where
// they copy nothing, or would crash trying.
func copied(mem []byte, offset, size uint64) (inMem []byte, n int, ok bool) {
	off, sz := int64(offset), int64(size)
	if off < 0 || sz < 0 || off > math.MaxInt64-sz {
		return nil, 0, false
	}
	length := int64(len(mem))
	switch {
	case off+sz < length:
		return mem[off : off+sz], int(sz), true
	case off+sz-length > memoryPadLimit:
		return nil, 0, false
	case off < length:
		return mem[off:], int(sz), true
	default:
		return nil, int(sz), true
	}
}

// preimages is the set of preimages a tracer keeps, by a hash of their
// content: equal preimages have one key, and the rare two that share a
// key only make the count lower. A zero-padded preimage is hashed
// without its trailing zeros and with its size, so that the same bytes
// read from memory or padded have the same key.
type preimages struct {
	seed maphash.Seed
	seen map[preimageKey]struct{}
}

type preimageKey struct {
	hash uint64
	size int
}

func newPreimages() *preimages {
	return &preimages{seed: maphash.MakeSeed(), seen: map[preimageKey]struct{}{}}
}

// add reports whether the preimage is new.
func (p *preimages) add(inMem []byte, size int) bool {
	var h maphash.Hash
	h.SetSeed(p.seed)
	h.Write(bytes.TrimRight(inMem, "\x00"))
	var sz [8]byte
	binary.LittleEndian.PutUint64(sz[:], uint64(size))
	h.Write(sz[:])
	k := preimageKey{hash: h.Sum64(), size: size}
	if _, dup := p.seen[k]; dup {
		return false
	}
	p.seen[k] = struct{}{}
	return true
}

// keccakEntryLeast is keccak256PreimageTracer's JSON of a preimage
// besides its hex: "0x<hash>":"0x…".
const keccakEntryLeast = 73

// keccakMeter meters keccak256PreimageTracer: a map from hash to preimage.
func keccakMeter() *meter {
	seen := newPreimages()
	return &meter{opcode: func(op byte, scope tracing.OpContext, _ []byte, _ error) int {
		if vm.OpCode(op) != vm.KECCAK256 {
			return 0
		}
		inMem, size, ok := preimage(scope.StackData(), scope.MemoryData())
		if !ok || !seen.add(inMem, size) {
			return 0
		}
		return keccakEntryLeast + 2*size
	}}
}

// structLogLeast is the least JSON of a struct log:
// {"pc":0,"op":"LT","gas":0,"gasCost":0,"depth":1}.
const structLogLeast = 48

// structLogMeter meters the struct logger with cfg, whose own limit is
// the response's room: its logs are JSON made at each step, of which the
// fields that grow are counted.
func structLogMeter(cfg logger.Config) *meter {
	return &meter{opcode: func(_ byte, scope tracing.OpContext, rData []byte, _ error) int {
		n := structLogLeast
		if s := len(scope.StackData()); !cfg.DisableStack && s > 0 {
			n += len(`,"stack":[]`) + 6*s - 1 // "0x0" and commas
		}
		if m := len(scope.MemoryData()); cfg.EnableMemory && m > 0 {
			n += len(`,"memory":[]`) + 69*((m+31)/32) - 1 // "0x" and 64 digits a word, and commas
		}
		if cfg.EnableReturnData && len(rData) > 0 {
			n += len(`,"returnData":"0x"`) + 2*len(rData)
		}
		return n
	}}
}

// erc7562 meters erc7562Tracer: its frames (as callTracer's), the
// preimages it keeps for the whole transaction (by content), and what each
// frame keeps at its opcodes (go-ethereum's erc7562.go OnOpcode).
type erc7562 struct {
	frames
	preimages *preimages
	ignored   [256]bool
	state     []frameState // by open frame
	last      *lastOp      // the opcode before, as the tracer keeps it
}

// frameState is what an erc7562Tracer frame has recorded at its opcodes.
type frameState struct {
	used  [256]bool
	sized map[common.Address]struct{} // contractSize
	slots map[slotAccess]struct{}
}

type slotAccess struct {
	op   vm.OpCode
	slot common.Hash
}

type lastOp struct {
	op    vm.OpCode
	stack bool // it had a stack item, which the next opcode may read
}

// The least JSON of what an erc7562Tracer frame records at opcodes (the
// commas between entries left out): a used opcode ("0x0":1), an address
// in extCodeAccessInfo, a contractSize entry
// ("0x…":{"contractSize":0,"opcode":0}), a slot read ("0x…":["0x…"]), a
// slot written or transient ("0x…":1), and a preimage ("0x…").
const (
	usedOpcodeLeast    = 7
	extCodeLeast       = 44
	contractSizeLeast  = 74
	slotReadLeast      = 139
	slotCountLeast     = 70
	erc7562KeccakLeast = 4
)

// erc7562Config is the part of erc7562Tracer's configuration the meter
// reads, as the tracer reads it.
type erc7562Config struct {
	IgnoredOpcodes []hexutil.Uint64 `json:"ignoredOpcodes"`
}

func newERC7562(cfg erc7562Config) *erc7562 {
	e := &erc7562{frames: frames{least: erc7562FrameLeast}, preimages: newPreimages()}
	ignored := cfg.IgnoredOpcodes
	if ignored == nil {
		ignored = erc7562DefaultIgnored()
	}
	for _, op := range ignored {
		e.ignored[byte(op)] = true
	}
	return e
}

// erc7562DefaultIgnored are the opcodes erc7562Tracer leaves out of
// usedOpcodes when its configuration names none (its
// defaultIgnoredOpcodes): fewer here would count opcodes it does not keep.
func erc7562DefaultIgnored() []hexutil.Uint64 {
	var ops []hexutil.Uint64
	for op := vm.PUSH0; op <= vm.SWAP16; op++ {
		ops = append(ops, hexutil.Uint64(op))
	}
	for _, op := range []vm.OpCode{vm.POP, vm.ADD, vm.SUB, vm.MUL, vm.DIV, vm.EQ, vm.LT, vm.GT,
		vm.SLT, vm.SGT, vm.SHL, vm.SHR, vm.AND, vm.OR, vm.NOT, vm.ISZERO} {
		ops = append(ops, hexutil.Uint64(op))
	}
	return ops
}

func (e *erc7562) meter() *meter {
	m := e.frames.meter()
	m.enter = func(depth int, typ byte, to common.Address, input []byte) int {
		e.state = append(e.state, frameState{})
		return e.frames.enter(depth, typ, to, input)
	}
	m.exit = func(depth int, output []byte, err error, reverted bool) int {
		if depth > 0 && len(e.state) > 1 {
			e.state = e.state[:len(e.state)-1]
		}
		return e.frames.exit(depth, output, err, reverted)
	}
	m.opcode = e.opcode
	return m
}

// opcode follows erc7562Tracer's OnOpcode step by step. It leaves out the
// GAS it counts after the fact, and counts nothing where the tracer would
// crash on a short stack (the trace is then an error).
func (e *erc7562) opcode(b byte, scope tracing.OpContext, _ []byte, _ error) int {
	if len(e.state) == 0 {
		return 0
	}
	op, stack := vm.OpCode(b), scope.StackData()
	fs := &e.state[len(e.state)-1]
	if op == vm.REVERT || op == vm.RETURN {
		e.last = nil
	}
	n := 0
	if l := e.last; l != nil && isExtCode(l.op) && l.stack && !(l.op == vm.EXTCODESIZE && op == vm.ISZERO) {
		n += extCodeLeast
	}
	n += fs.contractSize(op, stack)
	if op != vm.GAS && !e.ignored[b] && !fs.used[b] {
		fs.used[b] = true
		n += usedOpcodeLeast
	}
	n += fs.storage(op, stack)
	if op == vm.KECCAK256 {
		if inMem, size, ok := preimage(stack, scope.MemoryData()); ok && e.preimages.add(inMem, size) {
			n += erc7562KeccakLeast + 2*size
		}
	}
	e.last = &lastOp{op: op, stack: len(stack) > 0}
	return n
}

// contractSize counts the first EXTCODE* or call of an address in a frame.
func (fs *frameState) contractSize(op vm.OpCode, stack []uint256.Int) int {
	i := 1 // a call's address is under its gas
	switch {
	case isExtCode(op):
		i = 0
	case !isCall(op):
		return 0
	}
	if len(stack) <= i {
		return 0
	}
	addr := common.Address(stack[len(stack)-1-i].Bytes20())
	if _, seen := fs.sized[addr]; seen {
		return 0
	}
	if fs.sized == nil {
		fs.sized = map[common.Address]struct{}{}
	}
	fs.sized[addr] = struct{}{}
	return contractSizeLeast
}

// storage counts a slot's first read (unless written before), and the
// first write, transient read and transient write, in a frame.
func (fs *frameState) storage(op vm.OpCode, stack []uint256.Int) int {
	if op != vm.SLOAD && op != vm.SSTORE && op != vm.TLOAD && op != vm.TSTORE || len(stack) == 0 {
		return 0
	}
	slot := common.Hash(stack[len(stack)-1].Bytes32())
	if fs.slots == nil {
		fs.slots = map[slotAccess]struct{}{}
	}
	if op == vm.SLOAD {
		if _, written := fs.slots[slotAccess{vm.SSTORE, slot}]; written {
			return 0
		}
	}
	k := slotAccess{op, slot}
	if _, seen := fs.slots[k]; seen {
		return 0
	}
	fs.slots[k] = struct{}{}
	if op == vm.SLOAD {
		return slotReadLeast
	}
	return slotCountLeast
}

func isExtCode(op vm.OpCode) bool {
	return op == vm.EXTCODEHASH || op == vm.EXTCODESIZE || op == vm.EXTCODECOPY
}

func isCall(op vm.OpCode) bool {
	return op == vm.CALL || op == vm.CALLCODE || op == vm.DELEGATECALL || op == vm.STATICCALL
}
