package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// The values hold everything a page shows, so that a page reads no block.
// The key holds the position (block, indexes); the rest is here, numbers as
// uvarints and amounts as length-prefixed big-endian bytes.

const flagCreation = 1

// appendTx encodes t without its position.
func appendTx(dst []byte, t *Tx) []byte {
	var flags byte
	to := t.Created
	if t.To != nil {
		to = *t.To
	} else {
		flags |= flagCreation
	}
	dst = append(dst, flags, t.Status)
	dst = binary.AppendUvarint(dst, t.Time)
	dst = append(dst, t.Hash[:]...)
	dst = append(dst, t.From[:]...)
	dst = append(dst, to[:]...)
	dst = appendBig(dst, t.Value)
	dst = binary.AppendUvarint(dst, t.GasUsed)
	dst = binary.AppendUvarint(dst, t.Nonce)
	dst = binary.AppendUvarint(dst, t.Gas)
	dst = appendBig(dst, t.GasPrice)
	dst = binary.AppendUvarint(dst, t.CumulativeGasUsed)
	dst = binary.AppendUvarint(dst, uint64(t.InputLen))
	return append(dst, t.Selector[:min(4, t.InputLen)]...)
}

// decodeTx fills t from a value; to and value, gasPrice are where the
// pointers go, so that a page allocates them once for all its entries.
func decodeTx(v []byte, t *Tx, to *common.Address, value, gasPrice *big.Int) error {
	r := reader{b: v}
	flags, status := r.byte(), r.byte()
	t.Status = status
	t.Time = r.uvarint()
	r.copy(t.Hash[:])
	r.copy(t.From[:])
	r.copy(to[:])
	if flags&flagCreation != 0 {
		t.To, t.Created = nil, *to
	} else {
		t.To, t.Created = to, common.Address{}
	}
	t.Value = r.big(value)
	t.GasUsed = r.uvarint()
	t.Nonce = r.uvarint()
	t.Gas = r.uvarint()
	t.GasPrice = r.big(gasPrice)
	t.CumulativeGasUsed = r.uvarint()
	n := r.uvarint()
	if n > maxInput {
		r.fail()
	}
	t.InputLen = uint32(n)
	t.Selector = [4]byte{}
	r.copy(t.Selector[:min(4, t.InputLen)])
	return r.done("transaction")
}

// maxInput bounds a stored input length: far above what a block holds.
const maxInput = 1 << 30

func appendTransfer(dst []byte, t *Transfer) []byte {
	dst = binary.AppendUvarint(dst, t.Time)
	dst = append(dst, t.TxHash[:]...)
	dst = append(dst, t.Token[:]...)
	dst = append(dst, t.From[:]...)
	dst = append(dst, t.To[:]...)
	dst = appendBig(dst, t.Value)
	dst = binary.AppendUvarint(dst, t.Nonce)
	dst = binary.AppendUvarint(dst, t.Gas)
	dst = appendBig(dst, t.GasPrice)
	dst = binary.AppendUvarint(dst, t.GasUsed)
	return binary.AppendUvarint(dst, t.CumulativeGasUsed)
}

func decodeTransfer(v []byte, t *Transfer, value, gasPrice *big.Int) error {
	r := reader{b: v}
	t.Time = r.uvarint()
	r.copy(t.TxHash[:])
	r.copy(t.Token[:])
	r.copy(t.From[:])
	r.copy(t.To[:])
	t.Value = r.big(value)
	t.Nonce = r.uvarint()
	t.Gas = r.uvarint()
	t.GasPrice = r.big(gasPrice)
	t.GasUsed = r.uvarint()
	t.CumulativeGasUsed = r.uvarint()
	return r.done("transfer")
}

// appendBig appends a non-negative amount of at most 255 bytes (nil is
// zero); amounts on the chain have at most 32.
func appendBig(dst []byte, v *big.Int) []byte {
	if v == nil {
		return append(dst, 0)
	}
	n := (v.BitLen() + 7) / 8
	dst = append(dst, byte(n))
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	v.FillBytes(dst[start:])
	return dst
}

var errCorrupt = errors.New("corrupt index entry")

// reader decodes a value; the first error sticks and every later read
// returns zeros.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) fail() { r.bad, r.b = true, nil }

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) copy(dst []byte) {
	if len(r.b) < len(dst) {
		r.fail()
		return
	}
	r.b = r.b[copy(dst, r.b):]
}

// big decodes an amount into z.
func (r *reader) big(z *big.Int) *big.Int {
	n := int(r.byte())
	if len(r.b) < n {
		r.fail()
		return z.SetUint64(0)
	}
	z.SetBytes(r.b[:n])
	r.b = r.b[n:]
	return z
}

func (r *reader) done(what string) error {
	if r.bad || len(r.b) != 0 {
		return fmt.Errorf("%s: %w", what, errCorrupt)
	}
	return nil
}
