package codec

import "errors"

var (
	errNotArray  = errors.New("codec: JSON value is not an array")
	errNotObject = errors.New("codec: JSON value is not an object")
)

// iterState is where an iterator stands in its container.
type iterState uint8

const (
	iterFirst  iterState = iota // before the first element
	iterMiddle                  // after an element
	iterDone                    // past the end, or failed
)

// ArrayIter walks the elements of a JSON array in place. Each element is
// validated as it is reached, so a malformed array is reported by Err after
// Next returns false, and only the elements before the fault were seen.
//
//	it, err := codec.Array(params)
//	for it.Next() { use(it.Index(), it.Value()) }
//	if err := it.Err(); err != nil { ... }
type ArrayIter struct {
	data  []byte
	pos   int
	idx   int
	val   []byte
	err   error
	state iterState
}

// Array starts iterating the JSON array raw (surrounding whitespace allowed).
// It only checks that raw opens an array; the rest is checked by Next.
func Array(raw []byte) (ArrayIter, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return ArrayIter{state: iterDone, err: errNotArray}, errNotArray
	}
	return ArrayIter{data: raw, pos: i + 1, idx: -1}, nil
}

// Next advances to the next element and reports whether there is one.
func (it *ArrayIter) Next() bool {
	if it.state == iterDone {
		return false
	}
	i := skipSpace(it.data, it.pos)
	if i >= len(it.data) {
		return it.fail(ErrUnexpectedEnd)
	}
	if c := it.data[i]; c == ']' {
		return it.finish(i + 1)
	} else if it.state == iterMiddle {
		if c != ',' {
			return it.fail(ErrInvalidJSON)
		}
		i++
	}
	start := skipSpace(it.data, i)
	end, err := skipValue(it.data, start, MaxDepth-1)
	if err != nil {
		return it.fail(err)
	}
	it.val, it.pos, it.state = it.data[start:end], end, iterMiddle
	it.idx++
	return true
}

// Value returns the current element, trimmed; it aliases the input.
func (it *ArrayIter) Value() []byte { return it.val }

// Index returns the position of the current element, from 0.
func (it *ArrayIter) Index() int { return it.idx }

// Err returns the syntax error that stopped the iteration, if any.
func (it *ArrayIter) Err() error { return it.err }

func (it *ArrayIter) fail(err error) bool {
	it.err, it.val, it.state = err, nil, iterDone
	return false
}

func (it *ArrayIter) finish(end int) bool {
	if skipSpace(it.data, end) != len(it.data) {
		return it.fail(ErrTrailingData)
	}
	it.val, it.state = nil, iterDone
	return false
}

// ObjectIter walks the members of a JSON object in place, in input order,
// duplicates included. Like ArrayIter it validates as it goes.
type ObjectIter struct {
	data  []byte
	pos   int
	key   []byte
	val   []byte
	err   error
	state iterState
}

// Object starts iterating the JSON object raw (surrounding whitespace
// allowed). It only checks that raw opens an object; the rest is checked by
// Next.
func Object(raw []byte) (ObjectIter, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return ObjectIter{state: iterDone, err: errNotObject}, errNotObject
	}
	return ObjectIter{data: raw, pos: i + 1}, nil
}

// Next advances to the next member and reports whether there is one.
func (it *ObjectIter) Next() bool {
	if it.state == iterDone {
		return false
	}
	data := it.data
	i := skipSpace(data, it.pos)
	if i >= len(data) {
		return it.fail(ErrUnexpectedEnd)
	}
	if c := data[i]; c == '}' {
		return it.finish(i + 1)
	} else if it.state == iterMiddle {
		if c != ',' {
			return it.fail(ErrInvalidJSON)
		}
		i = skipSpace(data, i+1)
	}
	keyEnd, next, err := skipKey(data, i)
	if err != nil {
		return it.fail(err)
	}
	start := skipSpace(data, next)
	end, err := skipValue(data, start, MaxDepth-1)
	if err != nil {
		return it.fail(err)
	}
	it.key, it.val, it.pos, it.state = data[i+1:keyEnd-1], data[start:end], end, iterMiddle
	return true
}

// Key returns the current member's name as the raw bytes between its quotes:
// escapes are not decoded, so a key written with escapes does not compare
// equal to its plain spelling. It aliases the input.
func (it *ObjectIter) Key() []byte { return it.key }

// Value returns the current member's value, trimmed; it aliases the input.
func (it *ObjectIter) Value() []byte { return it.val }

// Err returns the syntax error that stopped the iteration, if any.
func (it *ObjectIter) Err() error { return it.err }

func (it *ObjectIter) fail(err error) bool {
	it.err, it.key, it.val, it.state = err, nil, nil, iterDone
	return false
}

func (it *ObjectIter) finish(end int) bool {
	if skipSpace(it.data, end) != len(it.data) {
		return it.fail(ErrTrailingData)
	}
	it.key, it.val, it.state = nil, nil, iterDone
	return false
}
