package codec

import (
	"strconv"
	"unicode/utf8"
)

// The writers append to dst and return the extended slice, like strconv's
// Append functions: with a reused buffer of sufficient capacity they do not
// allocate. A response is written as
//
//	buf = codec.AppendResultStart(buf[:0], req.ID)
//	buf = codec.AppendUint256(buf, balance)
//	buf = codec.AppendResultEnd(buf)
//
// and members appear in geth's order, so responses compare byte for byte.

// AppendResultStart appends `{"jsonrpc":"2.0","id":<id>,"result":`. id is the
// raw JSON id of the request; nil writes null.
func AppendResultStart(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	return append(dst, `,"result":`...)
}

// AppendResultEnd closes what AppendResultStart opened.
func AppendResultEnd(dst []byte) []byte {
	return append(dst, '}')
}

// AppendError appends a complete error response:
// {"jsonrpc":"2.0","id":<id>,"error":{"code":..,"message":..,"data":..}}.
// The message is escaped as a JSON string; "data" is left out when e.Data
// is nil.
func AppendError(dst, id []byte, e *Error) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, e.Message)
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, "}}"...)
}

func appendID(dst, id []byte) []byte {
	if id == nil {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}

// AppendBool appends true or false.
func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

const hexDigits = "0123456789abcdef"

// plainOut marks the ASCII bytes encoding/json writes unescaped (it escapes
// <, > and & too, so that JSON embedded in HTML stays inert).
var plainOut = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendString appends s as a JSON string exactly as encoding/json.Marshal
// writes it: quote and backslash escaped, control characters as \b \f \n
// \r \t or \u00XX, <, > and & as \u003c \u003e \u0026, U+2028 and U+2029
// escaped, and each byte of invalid UTF-8 replaced by \ufffd.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainOut[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
