package tracing

import (
	"slices"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers/native"
	"github.com/ethereum/go-ethereum/params"
)

// The tracers that record accounts: prestateTracer (accounts, their code
// and storage slots) and 4byteTracer (selectors and sizes of call data).

// The least JSON of what prestateTracer keeps (the commas between entries
// left out): an account ("0x…":{"balance":"0x0"}), the code hash of one
// with code, the code's key and quotes besides its hex, and a storage slot
// ("0x…":"0x…").
const (
	accountLeast  = 62
	codeHashLeast = 79
	codeLeast     = 10
	slotLeast     = 137
)

// prestate meters prestateTracer outside diff mode: the accounts it looks
// up (every one the tracer does, at the same events, so that it knows as
// the tracer does which were empty and leave the result at the end) and
// the slots of those that stay.
type prestate struct {
	cfg         native.PrestateTracerConfig
	chainConfig *params.ChainConfig
	env         *tracing.VMContext
	kept        map[common.Address]bool // looked up: whether it stays in the result
	slots       map[accountSlot]struct{}
}

type accountSlot struct {
	addr common.Address
	slot common.Hash
}

// prestateMeter is nil in diff mode: what it keeps is what the
// transaction changed, which only its end tells, and what it holds until
// then is bounded by gas (an account read costs at least 100).
func prestateMeter(cfg native.PrestateTracerConfig, chainConfig *params.ChainConfig) *meter {
	if cfg.DiffMode {
		return nil
	}
	p := &prestate{cfg: cfg, chainConfig: chainConfig, kept: map[common.Address]bool{}, slots: map[accountSlot]struct{}{}}
	return &meter{txStart: p.txStart, opcode: p.opcode}
}

// txStart follows prestateTracer's OnTxStart.
func (p *prestate) txStart(env *tracing.VMContext, tx *types.Transaction, from common.Address) int {
	p.env = env
	n := 0
	if to := tx.To(); to == nil {
		n += p.lookup(crypto.CreateAddress(from, env.StateDB.GetNonce(from)))
	} else {
		n += p.lookupDelegate(*to)
		n += p.lookup(*to)
	}
	n += p.lookup(from)
	n += p.lookup(env.Coinbase)
	for _, auth := range tx.SetCodeAuthorizations() {
		if addr, err := auth.Authority(); err == nil {
			n += p.lookup(addr)
		}
	}
	return n
}

// opcode follows prestateTracer's OnOpcode.
func (p *prestate) opcode(b byte, scope tracing.OpContext, _ []byte, err error) int {
	if err != nil || p.env == nil {
		return 0
	}
	op, stack := vm.OpCode(b), scope.StackData()
	n := len(stack)
	switch {
	case n >= 1 && (op == vm.SLOAD || op == vm.SSTORE):
		return p.slot(scope.Address(), common.Hash(stack[n-1].Bytes32()))
	case n >= 1 && (op == vm.EXTCODECOPY || op == vm.EXTCODEHASH || op == vm.EXTCODESIZE || op == vm.BALANCE || op == vm.SELFDESTRUCT):
		return p.lookup(common.Address(stack[n-1].Bytes20()))
	case n >= 5 && isCall(op):
		addr := common.Address(stack[n-2].Bytes20())
		return p.lookup(addr) + p.lookupDelegate(addr)
	case op == vm.CREATE:
		caller := scope.Address()
		return p.lookup(crypto.CreateAddress(caller, p.env.StateDB.GetNonce(caller)))
	case n >= 4 && op == vm.CREATE2:
		inMem, size, ok := copied(scope.MemoryData(), stack[n-2].Uint64(), stack[n-3].Uint64())
		if !ok {
			return 0
		}
		initHash := paddedHash(inMem, size)
		return p.lookup(crypto.CreateAddress2(scope.Address(), stack[n-4].Bytes32(), initHash[:]))
	}
	return 0
}

// lookupDelegate looks up the target of addr's EIP-7702 delegation, as
// the tracer does from Prague on.
func (p *prestate) lookupDelegate(addr common.Address) int {
	if !p.chainConfig.IsPrague(p.env.BlockNumber, p.env.Time) {
		return 0
	}
	if target, ok := types.ParseDelegation(p.env.StateDB.GetCode(addr)); ok {
		return p.lookup(target)
	}
	return 0
}

// lookup counts an account the first time the tracer looks it up, if it
// stays in the result: it existed then (or empty ones are included).
func (p *prestate) lookup(addr common.Address) int {
	if _, seen := p.kept[addr]; seen {
		return 0
	}
	st := p.env.StateDB
	code := st.GetCode(addr)
	keep := p.cfg.IncludeEmpty || st.GetNonce(addr) > 0 || len(code) > 0 || !st.GetBalance(addr).IsZero()
	p.kept[addr] = keep
	if !keep {
		return 0
	}
	n := accountLeast
	if len(code) > 0 {
		n += codeHashLeast
		if !p.cfg.DisableCode {
			n += codeLeast + 2*len(code)
		}
	}
	return n
}

// slot counts a storage slot the first time the tracer reads it, if its
// account stays in the result.
func (p *prestate) slot(addr common.Address, slot common.Hash) int {
	keep, seen := p.kept[addr]
	if p.cfg.DisableStorage || !seen {
		return 0
	}
	k := accountSlot{addr, slot}
	if _, dup := p.slots[k]; dup {
		return 0
	}
	p.slots[k] = struct{}{}
	if !keep {
		return 0
	}
	return slotLeast
}

// paddedHash is the Keccak-256 of inMem followed by zeros up to size
// bytes.
func paddedHash(inMem []byte, size int) common.Hash {
	h := crypto.NewKeccakState()
	h.Write(inMem)
	var zeros [4096]byte
	for left := size - len(inMem); left > 0; left -= len(zeros) {
		h.Write(zeros[:min(left, len(zeros))])
	}
	var out common.Hash
	h.Read(out[:])
	return out
}

// fourByteEntryLeast is 4byteTracer's JSON of a selector and size besides
// the size's digits: "0x12345678-":1.
const fourByteEntryLeast = 15

// fourByte meters 4byteTracer: one entry per selector and size of the
// calls to contracts.
type fourByte struct {
	chainConfig *params.ChainConfig
	precompiles []common.Address
	seen        map[fourByteKey]struct{}
}

type fourByteKey struct {
	selector [4]byte
	size     int
}

func fourByteMeter(chainConfig *params.ChainConfig) *meter {
	f := &fourByte{chainConfig: chainConfig, seen: map[fourByteKey]struct{}{}}
	return &meter{txStart: f.txStart, enter: f.enter}
}

func (f *fourByte) txStart(env *tracing.VMContext, _ *types.Transaction, _ common.Address) int {
	f.precompiles = vm.ActivePrecompiles(f.chainConfig.Rules(env.BlockNumber, env.Random != nil, env.Time))
	return 0
}

func (f *fourByte) enter(_ int, typ byte, to common.Address, input []byte) int {
	if len(input) < 4 || !isCall(vm.OpCode(typ)) || slices.Contains(f.precompiles, to) {
		return 0
	}
	k := fourByteKey{[4]byte(input[:4]), len(input) - 4}
	if _, dup := f.seen[k]; dup {
		return 0
	}
	f.seen[k] = struct{}{}
	return fourByteEntryLeast + len(strconv.Itoa(k.size))
}
