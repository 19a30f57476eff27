package codec

import (
	"unicode"
	"unicode/utf8"
)

// foldKey reports whether the raw member name key (as ObjectIter.Key returns
// it) selects the struct field name under encoding/json's rules, which is
// how geth decodes parameter objects: the name is unescaped, then compared
// case-insensitively with Unicode simple folding (so "BLOCKHASH" and
// "bloc\u212aHash", with a Kelvin sign, both select blockHash). name must be
// ASCII letters.
//
// The envelope does not use this: JSON-RPC member names are case-sensitive.
func foldKey(key []byte, name string) bool {
	if len(key) == len(name) && equalFoldASCII(key, name) {
		return true
	}
	if !needsUnquote(key) {
		return false
	}
	var buf [64]byte
	s, ok := appendUnquoted(buf[:0], key)
	if !ok {
		return false
	}
	for _, n := range []byte(name) {
		if len(s) == 0 {
			return false
		}
		r, size := utf8.DecodeRune(s)
		if foldRune(r) != foldRune(rune(n)) {
			return false
		}
		s = s[size:]
	}
	return len(s) == 0
}

// equalFoldASCII compares key with the letters of name, ignoring case.
func equalFoldASCII(key []byte, name string) bool {
	for i := range len(name) {
		// name[i] is a letter, so equality of the 0x20 bit-folded bytes
		// means key[i] is the same letter in either case.
		if key[i]|0x20 != name[i]|0x20 {
			return false
		}
	}
	return true
}

// needsUnquote reports whether s holds an escape or a non-ASCII byte, the
// only ways a name can match other than by ASCII case folding.
func needsUnquote(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// foldRune returns the smallest rune of r's simple fold orbit, as
// encoding/json's foldName does.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
