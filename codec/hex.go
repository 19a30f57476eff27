package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

// The hex parsers follow the UnmarshalJSON methods of go-ethereum's hexutil
// and common types byte for byte: they look at the raw bytes between the
// quotes without decoding JSON escapes (so an escaped digit is an invalid
// hex string, as in geth), accept the empty string "" as zero or empty, as
// geth does, and check prefix, length and syntax in geth's order so that the
// first error reported is geth's. Decoding errors are hexutil's own error
// values, unwrapped (errors.Is(err, hexutil.ErrSyntax) works; geth would wrap
// them in a json.UnmarshalTypeError); a raw value that is not a string gets
// the json.UnmarshalTypeError geth returns.

// The errors geth's json decoding returns for a non-string value.
var (
	errNonStringUint64  = nonString(reflect.TypeFor[hexutil.Uint64]())
	errNonStringBig     = nonString(reflect.TypeFor[*hexutil.Big]())
	errNonStringBytes   = nonString(reflect.TypeFor[hexutil.Bytes]())
	errNonStringAddress = nonString(reflect.TypeFor[common.Address]())
	errNonStringHash    = nonString(reflect.TypeFor[common.Hash]())
)

func nonString(t reflect.Type) error {
	return &json.UnmarshalTypeError{Value: "non-string", Type: t}
}

// stringContent returns the bytes between the quotes of raw, or false when
// raw is not quoted (geth's isString: no further validation).
func stringContent(raw []byte) ([]byte, bool) {
	raw = trimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// trimSpace drops JSON whitespace around a raw value, so the parsers also take
// values that were not trimmed by an iterator.
func trimSpace(raw []byte) []byte {
	i := skipSpace(raw, 0)
	j := len(raw)
	for j > i && isSpace[raw[j-1]] {
		j--
	}
	return raw[i:j]
}

// quantityDigits applies hexutil's checkNumberText: "" is zero (nil digits),
// otherwise 0x and at least one digit without leading zeros.
func quantityDigits(s []byte) ([]byte, error) {
	if len(s) == 0 {
		return nil, nil
	}
	if !has0xPrefix(s) {
		return nil, hexutil.ErrMissingPrefix
	}
	s = s[2:]
	if len(s) == 0 {
		return nil, hexutil.ErrEmptyNumber
	}
	if len(s) > 1 && s[0] == '0' {
		return nil, hexutil.ErrLeadingZero
	}
	return s, nil
}

// dataDigits applies hexutil's checkText with a required prefix: "" is
// empty, otherwise 0x and an even number of digits.
func dataDigits(s []byte) ([]byte, error) {
	if len(s) == 0 {
		return nil, nil
	}
	if !has0xPrefix(s) {
		return nil, hexutil.ErrMissingPrefix
	}
	s = s[2:]
	if len(s)%2 != 0 {
		return nil, hexutil.ErrOddLength
	}
	return s, nil
}

// ParseUint64 parses a quantity ("0x0", "0x1a": hex, 0x or 0X, no leading
// zeros, at most 64 bits) as hexutil.Uint64 does. Like geth it takes "" as 0.
func ParseUint64(raw []byte) (uint64, error) {
	s, ok := stringContent(raw)
	if !ok {
		return 0, errNonStringUint64
	}
	digits, err := quantityDigits(s)
	if err != nil {
		return 0, err
	}
	if len(digits) > 16 {
		return 0, hexutil.ErrUint64Range
	}
	v, ok := hexWord(digits)
	if !ok {
		return 0, hexutil.ErrSyntax
	}
	return v, nil
}

// ParseUint256 parses a quantity of at most 256 bits into z, as hexutil.Big
// does (geth's type for values and fees). Like geth it takes "" as 0. z is
// left unchanged on error.
func ParseUint256(raw []byte, z *uint256.Int) error {
	s, ok := stringContent(raw)
	if !ok {
		return errNonStringBig
	}
	digits, err := quantityDigits(s)
	if err != nil {
		return err
	}
	if len(digits) > 64 {
		return hexutil.ErrBig256Range
	}
	// Sixteen digits to a word, from the least significant end.
	var words [4]uint64
	for w := 0; len(digits) > 0; w++ {
		start := max(0, len(digits)-16)
		v, ok := hexWord(digits[start:])
		if !ok {
			return hexutil.ErrSyntax
		}
		words[w] = v
		digits = digits[:start]
	}
	*z = words
	return nil
}

// AppendData decodes data ("0x" followed by an even number of hex digits;
// "0x" and, as in geth, "" are empty) as hexutil.Bytes does, appending the
// bytes to dst. On error dst is returned with its original length.
func AppendData(dst []byte, raw []byte) ([]byte, error) {
	s, ok := stringContent(raw)
	if !ok {
		return dst, errNonStringBytes
	}
	digits, err := dataDigits(s)
	if err != nil {
		return dst, err
	}
	n := len(dst)
	dst = slices.Grow(dst, len(digits)/2)[:n+len(digits)/2]
	if !decodeHex(dst[n:], digits) {
		return dst[:n], hexutil.ErrSyntax
	}
	return dst, nil
}

// ParseAddress parses a 20-byte address ("0x" and 40 hex digits) as
// common.Address does, including its length error ("hex string has length
// 38, want 40 for common.Address").
func ParseAddress(raw []byte) (common.Address, error) {
	var a common.Address
	s, ok := stringContent(raw)
	if !ok {
		return a, errNonStringAddress
	}
	return a, decodeFixed(a[:], s, "common.Address")
}

// ParseHash parses a 32-byte hash ("0x" and 64 hex digits) as common.Hash
// does.
func ParseHash(raw []byte) (common.Hash, error) {
	var h common.Hash
	s, ok := stringContent(raw)
	if !ok {
		return h, errNonStringHash
	}
	return h, decodeFixed(h[:], s, "common.Hash")
}

// decodeFixed is hexutil.UnmarshalFixedText: prefix, even length, exact
// length, then syntax. out is left zero on error.
func decodeFixed(out, s []byte, typ string) error {
	digits, err := dataDigits(s)
	if err != nil {
		return err
	}
	if len(digits) != 2*len(out) {
		return fmt.Errorf("hex string has length %d, want %d for %s", len(digits), 2*len(out), typ)
	}
	if !decodeHex(out, digits) {
		clear(out)
		return hexutil.ErrSyntax
	}
	return nil
}
