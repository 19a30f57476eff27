package codec

import "encoding/binary"

// Hex digit decoding shared by the parsers. The parsers decide what a value
// must look like; these only turn digits into bits, as fast as plain Go
// allows.

// nibble maps a byte to its hex value, or to badNibble.
var nibble = func() (t [256]byte) {
	for i := range t {
		t[i] = badNibble
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

const badNibble = 0xff

func has0xPrefix(s []byte) bool {
	return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

// hexWord decodes up to 16 hex digits. The loop has no branch: a bad digit
// poisons the high bits of bad, checked once at the end.
func hexWord(digits []byte) (v uint64, ok bool) {
	var bad byte
	for _, c := range digits {
		n := nibble[c]
		bad |= n
		v = v<<4 | uint64(n&0xf)
	}
	return v, bad&0xf0 == 0
}

// decodeHex decodes the even-length hex digits src into dst (len(src)/2
// bytes), reporting false on a non-hex byte. Eight digits are decoded at a
// time in a machine word; the tail goes through the table.
func decodeHex(dst, src []byte) bool {
	var bad uint64
	n := 0
	for ; len(src) >= 8 && len(dst)-n >= 4; src = src[8:] {
		v, invalid := hex8(binary.LittleEndian.Uint64(src))
		bad |= invalid
		binary.LittleEndian.PutUint32(dst[n:], v)
		n += 4
	}
	var badTail byte
	for i := 0; i+1 < len(src) && n < len(dst); i += 2 {
		hi, lo := nibble[src[i]], nibble[src[i+1]]
		badTail |= hi | lo
		dst[n] = hi<<4 | lo&0xf
		n++
	}
	return bad == 0 && badTail&0xf0 == 0
}

// hex8 decodes the eight hex digits in x (the first in the low byte) to four
// bytes. invalid is non-zero when a byte is not a hex digit; the bytes are
// then garbage.
//
// Each byte b < 0x80 is range-checked without crossing into its neighbour:
// b+0x80-lo has its top bit set iff b >= lo, b+0x7f-hi iff b > hi.
func hex8(x uint64) (v uint32, invalid uint64) {
	const l = lanes1
	lower := x | 0x20*l
	digit := (x + (0x80-'0')*l) &^ (x + (0x7f-'9')*l)
	alpha := (lower + (0x80-'a')*l) &^ (lower + (0x7f-'f')*l)
	invalid = (^(digit | alpha) | x) & lanesTop
	// A nibble is the low four bits, plus 9 for a letter ('a' is 0x61).
	nib := x&(0x0f*l) + (alpha&lanesTop)>>7*9
	// Pair the nibbles (lanes 0, 2, 4, 6 hold the bytes), then pack.
	w := (nib<<4 | nib>>8) & 0x00ff00ff00ff00ff
	w = (w | w>>8) & 0x0000ffff0000ffff
	w = w | w>>16
	return uint32(w), invalid
}
