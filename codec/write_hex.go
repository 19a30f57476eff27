package codec

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// Quantities are written as execution-apis and hexutil write them: quoted,
// 0x-prefixed, lowercase, with the fewest digits ("0x0" for zero). Data is
// quoted, 0x-prefixed, lowercase, two digits per byte ("0x" when empty).

// AppendUint64 appends v as a quantity, as hexutil.Uint64 marshals it.
func AppendUint64(dst []byte, v uint64) []byte {
	dst = append(dst, `"0x`...)
	dst = appendHexWord(dst, v, max(1, (bits.Len64(v)+3)>>2))
	return append(dst, '"')
}

// appendHexWord appends the n low nibbles of w, most significant first.
func appendHexWord(dst []byte, w uint64, n int) []byte {
	var buf [16]byte
	for i := n - 1; i >= 0; i-- {
		buf[i] = hexDigits[w&0xf]
		w >>= 4
	}
	return append(dst, buf[:n]...)
}

// AppendUint256 appends v as a quantity, as hexutil.U256 marshals it; nil
// writes null, as encoding/json writes a nil pointer.
func AppendUint256(dst []byte, v *uint256.Int) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	top := 3
	for top > 0 && v[top] == 0 {
		top--
	}
	dst = append(dst, `"0x`...)
	dst = appendHexWord(dst, v[top], max(1, (bits.Len64(v[top])+3)>>2))
	for i := top - 1; i >= 0; i-- {
		dst = appendHexWord(dst, v[i], 16)
	}
	return append(dst, '"')
}

// AppendBig appends v as a quantity, as hexutil.Big marshals it, negative
// values as "-0x..."; nil writes null, as encoding/json writes a nil pointer.
func AppendBig(dst []byte, v *big.Int) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	words := v.Bits() // absolute value, least significant word first
	top := len(words) - 1
	for top >= 0 && words[top] == 0 {
		top--
	}
	if top < 0 {
		return append(dst, `"0x0"`...)
	}
	dst = append(dst, '"')
	if v.Sign() < 0 {
		dst = append(dst, '-')
	}
	dst = append(dst, "0x"...)
	const wordNibbles = bits.UintSize / 4
	dst = appendHexWord(dst, uint64(words[top]), (bits.Len(uint(words[top]))+3)>>2)
	for i := top - 1; i >= 0; i-- {
		dst = appendHexWord(dst, uint64(words[i]), wordNibbles)
	}
	return append(dst, '"')
}

// AppendBytes appends b as data, as hexutil.Bytes marshals it.
func AppendBytes(dst []byte, b []byte) []byte {
	dst = append(dst, `"0x`...)
	dst = appendHex(dst, b)
	return append(dst, '"')
}

// appendHex appends the lowercase hex of src, eight bytes per step in
// machine words, the tail byte by byte.
func appendHex(dst, src []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 2*len(src))[:n+2*len(src)]
	out := dst[n:]
	i := 0
	for ; i+8 <= len(src) && 2*i+16 <= len(out); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(out[2*i:], hex4(uint32(x)))
		binary.LittleEndian.PutUint64(out[2*i+8:], hex4(uint32(x>>32)))
	}
	for ; i < len(src) && 2*i+1 < len(out); i++ {
		c := src[i]
		out[2*i], out[2*i+1] = hexDigits[c>>4], hexDigits[c&0xf]
	}
	return dst
}

// hex4 spreads the four bytes of x (the first in the low byte) to eight
// lowercase hex digits, the first in the low byte.
func hex4(x uint32) uint64 {
	const l = lanes1
	w := uint64(x)
	w = (w | w<<16) & 0x0000ffff0000ffff
	w = (w | w<<8) & 0x00ff00ff00ff00ff // byte k in lane 2k
	nib := (w>>4)&0x000f000f000f000f | (w&0x000f000f000f000f)<<8
	// '0' + nib, plus 'a'-'0'-10 = 39 where nib >= 10 (nib+6 carries into bit 4).
	return nib + '0'*l + ((nib+6*l)>>4&l)*39
}

// AppendAddress appends a in lowercase hex, as geth's JSON writes addresses
// (not the EIP-55 checksummed form).
func AppendAddress(dst []byte, a common.Address) []byte {
	return AppendBytes(dst, a[:])
}

// AppendHash appends h as 32 bytes of data.
func AppendHash(dst []byte, h common.Hash) []byte {
	return AppendBytes(dst, h[:])
}
