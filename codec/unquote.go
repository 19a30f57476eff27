package codec

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// appendUnquoted decodes the content of a JSON string (the bytes between the
// quotes) exactly as encoding/json does when it unmarshals into a string:
// escapes are decoded, a surrogate pair becomes one rune, and a lone
// surrogate or a byte of invalid UTF-8 becomes U+FFFD. The result is
// appended to buf, or is s itself when s needs no decoding. ok is false if
// s is not valid string content.
//
// Only the cold paths use it (escaped block tags, escaped member names):
// hex values are taken raw, as geth's hexutil takes them.
func appendUnquoted(buf, s []byte) (out []byte, ok bool) {
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' || c >= utf8.RuneSelf {
			break
		}
		r++
	}
	if r == len(s) {
		return s, true
	}
	out = append(buf, s[:r]...)
	for r < len(s) {
		c := s[r]
		switch {
		case c == '\\':
			r++
			if r >= len(s) {
				return out, false
			}
			switch e := s[r]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				if rr < 0 {
					return out, false
				}
				r += 4
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r+1:])); dec != unicode.ReplacementChar {
						rr = dec
						r += 6
					} else {
						rr = unicode.ReplacementChar
					}
				}
				out = utf8.AppendRune(out, rr)
			default:
				return out, false
			}
			r++
		case c == '"' || c < ' ':
			return out, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return out, true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		n := nibble[c]
		if n == badNibble {
			return -1
		}
		r = r<<4 | rune(n)
	}
	return r
}
