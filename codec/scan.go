package codec

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// MaxDepth is the deepest nesting of arrays and objects the scanner accepts.
// A request is a few levels deep; the limit bounds the work a hostile body can
// cause and lets the scanner keep its container stack in one machine word.
const MaxDepth = 64

// Syntax errors. They are sentinels rather than values with offsets so that
// rejecting garbage costs no allocation: the server answers every one of
// them with the same "parse error" anyway.
var (
	ErrUnexpectedEnd = errors.New("codec: unexpected end of JSON input")
	ErrInvalidJSON   = errors.New("codec: invalid character in JSON input")
	ErrTooDeep       = errors.New("codec: JSON nesting exceeds MaxDepth")
	ErrTrailingData  = errors.New("codec: invalid data after top-level JSON value")
)

// Valid reports whether data is exactly one JSON value (RFC 8259), optionally
// surrounded by whitespace, nested at most MaxDepth deep. Up to that depth it
// agrees with encoding/json.Valid, including its tolerance of invalid UTF-8
// inside strings.
func Valid(data []byte) bool {
	end, err := skipValue(data, 0, MaxDepth)
	return err == nil && skipSpace(data, end) == len(data)
}

// SkipValue validates the JSON value that starts at data[i] after any
// whitespace and returns the index just past it. Nothing after the value is
// examined: "1x" yields end 1 and no error, the caller decides what may follow.
func SkipValue(data []byte, i int) (end int, err error) {
	if i < 0 || i > len(data) {
		return i, ErrUnexpectedEnd
	}
	return skipValue(data, i, MaxDepth)
}

// isSpace marks the four whitespace bytes JSON allows between tokens.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// skipSpace returns the index of the first non-whitespace byte at or after i.
// Compact JSON has no whitespace, so the common case is one comparison:
// every whitespace byte is <= ' '.
func skipSpace(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' && isSpace[data[i]] {
		i++
	}
	return i
}

// skipValue validates one value starting at data[i] (after whitespace) with
// containers nested at most maxDepth (<= 64) deep. It is iterative: a bit per
// level of stack records whether that level is an object, so hostile nesting
// costs neither recursion nor memory.
func skipValue(data []byte, i int, maxDepth int) (int, error) {
	var objects uint64 // bit d-1 set: the container at depth d is an object
	depth := 0
	var err error
	for {
		// A value is expected at i.
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, ErrUnexpectedEnd
		}
		switch c := data[i]; c {
		case '"':
			if i, err = skipString(data, i+1); err != nil {
				return i, err
			}
		case '{', '[':
			if depth == maxDepth {
				return i, ErrTooDeep
			}
			depth++
			i = skipSpace(data, i+1)
			if c == '{' {
				objects |= 1 << (depth - 1)
				if i < len(data) && data[i] == '}' {
					i++
					depth--
					break // an empty object is a complete value
				}
				if _, i, err = skipKey(data, i); err != nil {
					return i, err
				}
				continue // the member's value
			}
			objects &^= 1 << (depth - 1)
			if i < len(data) && data[i] == ']' {
				i++
				depth--
				break // an empty array is a complete value
			}
			continue // the first element
		case 't':
			if i, err = skipLiteral(data, i, "true"); err != nil {
				return i, err
			}
		case 'f':
			if i, err = skipLiteral(data, i, "false"); err != nil {
				return i, err
			}
		case 'n':
			if i, err = skipLiteral(data, i, "null"); err != nil {
				return i, err
			}
		default:
			if i, err = skipNumber(data, i); err != nil {
				return i, err
			}
		}

		// A value is complete: close containers until one wants another
		// member or element.
		for {
			if depth == 0 {
				return i, nil
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, ErrUnexpectedEnd
			}
			inObject := objects&(1<<(depth-1)) != 0
			c := data[i]
			if c == ',' {
				i++
				if inObject {
					if _, i, err = skipKey(data, skipSpace(data, i)); err != nil {
						return i, err
					}
				}
				break
			}
			if (inObject && c == '}') || (!inObject && c == ']') {
				i++
				depth--
				continue
			}
			return i, ErrInvalidJSON
		}
	}
}

// skipKey validates `"name" :` starting at data[i]. It returns the index
// just past the closing quote and the index just past the colon.
func skipKey(data []byte, i int) (keyEnd, next int, err error) {
	if i >= len(data) {
		return i, i, ErrUnexpectedEnd
	}
	if data[i] != '"' {
		return i, i, ErrInvalidJSON
	}
	if keyEnd, err = skipString(data, i+1); err != nil {
		return keyEnd, keyEnd, err
	}
	next = skipSpace(data, keyEnd)
	if next >= len(data) {
		return keyEnd, next, ErrUnexpectedEnd
	}
	if data[next] != ':' {
		return keyEnd, next, ErrInvalidJSON
	}
	return keyEnd, next + 1, nil
}

func skipLiteral(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) {
		if string(data[i:]) == lit[:len(data)-i] {
			return len(data), ErrUnexpectedEnd
		}
		return i, ErrInvalidJSON
	}
	if string(data[i:i+len(lit)]) != lit {
		return i, ErrInvalidJSON
	}
	return i + len(lit), nil
}

// skipNumber validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at
// data[i] and returns the index just past it.
func skipNumber(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
		if i >= len(data) {
			return i, ErrUnexpectedEnd
		}
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i = skipDigits(data, i+1)
	default:
		return i, ErrInvalidJSON
	}
	if i < len(data) && data[i] == '.' {
		i++
		j := skipDigits(data, i)
		if j == i {
			return fractionError(data, j)
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := skipDigits(data, i)
		if j == i {
			return fractionError(data, j)
		}
		i = j
	}
	return i, nil
}

// fractionError reports a missing digit after '.', 'e' or a sign.
func fractionError(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, ErrUnexpectedEnd
	}
	return i, ErrInvalidJSON
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// plainString marks the bytes a string may hold without a second look:
// everything but the quote, the backslash and control characters. Bytes
// >= 0x80 are plain, as encoding/json does not validate UTF-8 either.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// SWAR constants: eight byte lanes in a uint64.
const (
	lanes1   = 0x0101010101010101
	lanesTop = 0x8080808080808080
)

// specialLanes returns a word whose lowest set lane-top bit marks the first
// byte of w that is a quote, a backslash or below 0x20; zero if there is none.
// (The subtraction's borrow can flag lanes above a true match, never below
// it, so the lowest flag is exact.)
func specialLanes(w uint64) uint64 {
	q := w ^ (lanes1 * '"')
	b := w ^ (lanes1 * '\\')
	return ((q-lanes1)&^q | (b-lanes1)&^b | (w-lanes1*0x20)&^w) & lanesTop
}

// skipString validates the rest of a string whose opening quote is at i-1
// and returns the index just past the closing quote. Long runs of plain
// bytes (hex data, mostly) are skipped eight at a time.
func skipString(data []byte, i int) (int, error) {
	for {
		for len(data)-i >= 8 {
			m := specialLanes(binary.LittleEndian.Uint64(data[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(data) && plainString[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, ErrUnexpectedEnd
		}
		switch data[i] {
		case '"':
			return i + 1, nil
		case '\\':
			n, err := skipEscape(data, i+1)
			if err != nil {
				return n, err
			}
			i = n
		default: // a control character
			return i, ErrInvalidJSON
		}
	}
}

// skipEscape validates the escape whose backslash is at i-1.
func skipEscape(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, ErrUnexpectedEnd
	}
	switch data[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 1, nil
	case 'u':
		for j := i + 1; j < i+5; j++ {
			if j >= len(data) {
				return j, ErrUnexpectedEnd
			}
			if nibble[data[j]] > 0xf {
				return j, ErrInvalidJSON
			}
		}
		return i + 5, nil
	}
	return i, ErrInvalidJSON
}
