package rpc

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// The BLAKE2F precompile (EIP-152, address 0x09) charges one gas per round
// and takes the round count from its input: one call within the gas cap
// runs 48M rounds, 0.76 s of go-ethereum's assembly. Assembly cannot be
// preempted, so while it runs its CPU is lost to everything else, the
// garbage collector's stop-the-world waits for it (stalling every
// goroutine), and the EVM's cancellation is not looked at until it returns.
// eth_call and friends therefore run this precompile in Go: the same result
// and gas, computed by a loop the scheduler can preempt and that stops when
// the call is cancelled. Blocks keep go-ethereum's: a transaction pays for
// every round it runs.

// blake2FAddress is the precompile's address.
var blake2FAddress = common.BytesToAddress([]byte{0x09})

var errBlake2FAborted = errors.New("execution aborted")

// blake2F is BLAKE2F for one EVM: it stops when that EVM is cancelled.
type blake2F struct{ evm *vm.EVM }

func (c *blake2F) RequiredGas(input []byte) uint64 {
	if len(input) != blake2FInputLength {
		return 0 // geth: the call fails in Run
	}
	return uint64(binary.BigEndian.Uint32(input[0:4]))
}

func (c *blake2F) Name() string { return "BLAKE2F" }

const blake2FInputLength = 213

var (
	errBlake2FInvalidInputLength = errors.New("invalid input length")
	errBlake2FInvalidFinalFlag   = errors.New("invalid final flag")
)

// Run decodes the input as go-ethereum's blake2F does, with its errors.
func (c *blake2F) Run(input []byte) ([]byte, error) {
	if len(input) != blake2FInputLength {
		return nil, errBlake2FInvalidInputLength
	}
	if input[212] > 1 {
		return nil, errBlake2FInvalidFinalFlag
	}
	var (
		h [8]uint64
		m [16]uint64
		t [2]uint64
	)
	rounds := binary.BigEndian.Uint32(input[0:4])
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(input[4+8*i:])
	}
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(input[68+8*i:])
	}
	t[0] = binary.LittleEndian.Uint64(input[196:])
	t[1] = binary.LittleEndian.Uint64(input[204:])
	if !blake2bF(&h, &m, t, input[212] == 1, rounds, c.evm.Cancelled) {
		return nil, errBlake2FAborted
	}
	out := make([]byte, 64)
	for i, v := range h {
		binary.LittleEndian.PutUint64(out[8*i:], v)
	}
	return out, nil
}

// blake2bIV is BLAKE2b's initialisation vector (RFC 7693, 2.6).
var blake2bIV = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}

// blake2bSigma is the message schedule (RFC 7693, 2.7); round i uses row i mod 10.
var blake2bSigma = [10][16]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

// stopEvery is how many rounds run between looks at stop (a few µs).
const stopEvery = 1 << 10

// blake2bF is BLAKE2b's compression function F with a round count (RFC
// 7693 3.2, EIP-152). It reports false, leaving h undefined, when stop
// returns true.
func blake2bF(h *[8]uint64, m *[16]uint64, t [2]uint64, final bool, rounds uint32, stop func() bool) bool {
	v0, v1, v2, v3, v4, v5, v6, v7 := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	v8, v9, v10, v11 := blake2bIV[0], blake2bIV[1], blake2bIV[2], blake2bIV[3]
	v12, v13, v14, v15 := blake2bIV[4]^t[0], blake2bIV[5]^t[1], blake2bIV[6], blake2bIV[7]
	if final {
		v14 = ^v14
	}
	for i := uint32(0); i < rounds; i++ {
		if i%stopEvery == stopEvery-1 && stop() {
			return false
		}
		s := &blake2bSigma[i%10]
		v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, m[s[0]], m[s[1]])
		v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, m[s[2]], m[s[3]])
		v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, m[s[4]], m[s[5]])
		v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, m[s[6]], m[s[7]])
		v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, m[s[8]], m[s[9]])
		v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, m[s[10]], m[s[11]])
		v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, m[s[12]], m[s[13]])
		v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, m[s[14]], m[s[15]])
	}
	h[0] ^= v0 ^ v8
	h[1] ^= v1 ^ v9
	h[2] ^= v2 ^ v10
	h[3] ^= v3 ^ v11
	h[4] ^= v4 ^ v12
	h[5] ^= v5 ^ v13
	h[6] ^= v6 ^ v14
	h[7] ^= v7 ^ v15
	return true
}

// blake2bG is the mixing function G (RFC 7693, 3.1).
func blake2bG(a, b, c, d, x, y uint64) (uint64, uint64, uint64, uint64) {
	a += b + x
	d = bits.RotateLeft64(d^a, -32)
	c += d
	b = bits.RotateLeft64(b^c, -24)
	a += b + y
	d = bits.RotateLeft64(d^a, -16)
	c += d
	b = bits.RotateLeft64(b^c, -63)
	return a, b, c, d
}

// callPrecompiles hands out, per fork, copies of go-ethereum's precompile
// set with BLAKE2F replaced by an interruptible one bound to one EVM. They
// are pooled: building a set per call would cost a map per eth_call.
type callPrecompiles struct {
	mu   sync.Mutex
	sets map[params.Rules]*sync.Pool // of *precompileSet
	// last is the fork of the last call: nearly every call's, read without
	// a lock or a map lookup (a Rules key in a map costs an allocation).
	last atomic.Pointer[forkPrecompiles]
}

// forkPrecompiles is one fork's pool of precompile sets.
type forkPrecompiles struct {
	rules params.Rules
	pool  *sync.Pool
}

type precompileSet struct {
	pool      *sync.Pool
	contracts vm.PrecompiledContracts
	blake     *blake2F // nil before Istanbul
}

// install gives evm its interruptible precompiles; release gives them back
// once evm is done.
func (c *callPrecompiles) install(evm *vm.EVM) *precompileSet {
	set := c.pool(evm.GetRules()).Get().(*precompileSet)
	if set.blake != nil {
		set.blake.evm = evm
		evm.SetPrecompiles(set.contracts)
	}
	return set
}

// pool is rules' pool of precompile sets.
func (c *callPrecompiles) pool(rules params.Rules) *sync.Pool {
	if last := c.last.Load(); last != nil && last.rules == rules {
		return last.pool
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil {
		c.sets = make(map[params.Rules]*sync.Pool)
	}
	p := c.sets[rules]
	if p == nil {
		p = newPrecompilePool(rules)
		c.sets[rules] = p
	}
	c.last.Store(&forkPrecompiles{rules: rules, pool: p})
	return p
}

func (set *precompileSet) release() {
	if set.blake != nil {
		set.blake.evm = nil
	}
	set.pool.Put(set)
}

func newPrecompilePool(rules params.Rules) *sync.Pool {
	p := new(sync.Pool)
	p.New = func() any {
		set := &precompileSet{pool: p, contracts: vm.ActivePrecompiledContracts(rules)}
		if _, ok := set.contracts[blake2FAddress]; ok {
			set.blake = new(blake2F)
			set.contracts[blake2FAddress] = set.blake
		}
		return set
	}
	return p
}

// overridden is a precompile set a call's state overrides changed (a
// precompile moved or replaced), with its BLAKE2F if it has one.
type overridden struct {
	contracts vm.PrecompiledContracts
	blake     *blake2F
}

// install gives evm the set, its BLAKE2F bound to evm until release. The
// EVMs of one call run one at a time.
func (o *overridden) install(evm *vm.EVM) {
	if o.blake != nil {
		o.blake.evm = evm
	}
	evm.SetPrecompiles(o.contracts)
}

func (o *overridden) release() {
	if o.blake != nil {
		o.blake.evm = nil
	}
}
