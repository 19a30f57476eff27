package codec

import "bytes"

// Request is a scanned JSON-RPC request envelope. Its slices alias the
// scanned input.
type Request struct {
	// ID is the raw JSON of "id" (a string with its quotes, a number or
	// null), to be echoed verbatim; nil when absent, which makes the request
	// a notification. An "id" of null is present: ID is then "null".
	ID []byte
	// Method is the method name without quotes.
	Method []byte
	// Params is the raw JSON of "params", an array or an object; nil when
	// absent or null.
	Params []byte
	// Version reports whether "jsonrpc" was exactly "2.0".
	Version bool
}

// ScanRequest scans one request object (not a batch: see IsBatch) into req,
// validating the whole input, and returns nil or the error object to answer
// with:
//
//   - ErrParse when data is not valid JSON (req.ID is then nil);
//   - ErrInvalidRequest when it is valid JSON but not a request: not an
//     object, "method" missing, empty, not a string or written with escapes,
//     "id" an object, array or boolean, "params" neither array, object nor
//     null, or "jsonrpc" present and not "2.0". req.ID is set when "id" was
//     valid, so the error can be addressed to the caller.
//
// A missing "jsonrpc" is not an error here; Version reports it. Member names
// are matched exactly (JSON-RPC 2.0 says they are case-sensitive), later
// duplicates win, and unknown members are ignored.
func ScanRequest(data []byte, req *Request) *Error {
	*req = Request{}
	it, err := Object(data)
	if err != nil {
		if Valid(data) {
			return ErrInvalidRequest
		}
		return ErrParse
	}
	var id, method, params, version []byte
	for it.Next() {
		switch string(it.Key()) {
		case "id":
			id = it.Value()
		case "method":
			method = it.Value()
		case "params":
			params = it.Value()
		case "jsonrpc":
			version = it.Value()
		}
	}
	if it.Err() != nil {
		return ErrParse
	}

	if id != nil {
		switch id[0] {
		case '{', '[', 't', 'f':
			return ErrInvalidRequest
		}
		req.ID = id
	}
	if version != nil && string(version) != `"2.0"` {
		return ErrInvalidRequest
	}
	name, ok := plainStringContent(method)
	if !ok || len(name) == 0 {
		return ErrInvalidRequest
	}
	switch {
	case params == nil, string(params) == "null":
		params = nil
	case params[0] != '[' && params[0] != '{':
		return ErrInvalidRequest
	}
	req.Method, req.Params, req.Version = name, params, version != nil
	return nil
}

// plainStringContent returns the content of a validated JSON string that has
// no escapes; false for anything else.
func plainStringContent(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	return s, bytes.IndexByte(s, '\\') < 0
}

// IsBatch reports whether data is a batch, that is whether its first
// non-whitespace byte is '['. It does not validate anything.
func IsBatch(data []byte) bool {
	i := skipSpace(data, 0)
	return i < len(data) && data[i] == '['
}
