package codec

// Error codes of JSON-RPC 2.0 and the Ethereum extensions geth answers with
// (EIP-1474).
const (
	CodeParse            = -32700 // invalid JSON
	CodeInvalidRequest   = -32600 // valid JSON, not a request
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternal         = -32603
	CodeServer           = -32000 // geth's code for errors returned by API methods
	CodeTimeout          = -32002 // geth: the request (or batch) ran out of time
	CodeResponseTooLarge = -32003 // geth: a batch response over its size limit
	CodeLimitExceeded    = -32005 // request exceeds a defined limit (overload)
)

// Error is a JSON-RPC error object. Data, when not nil, is raw JSON written
// verbatim into the "data" member.
type Error struct {
	Code    int
	Message string
	Data    []byte
}

// Error returns the message, so that an *Error passes through Go error
// plumbing and still says what the client will read.
func (e *Error) Error() string { return e.Message }

// The two envelope errors ScanRequest returns. They are shared: do not
// modify them.
var (
	ErrParse          = &Error{Code: CodeParse, Message: "parse error"}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "invalid request"}
)

// typeError is the text encoding/json gives a value of the wrong JSON kind,
// for the Go types of geth's this package cannot name with reflect.
type typeError struct{ kind, typ string }

func (e *typeError) Error() string {
	return "json: cannot unmarshal " + e.kind + " into Go value of type " + e.typ
}

func jsonKindError(kind, typ string) error { return &typeError{kind, typ} }

// kindName names the JSON kind of a value by its first byte, as
// encoding/json's errors do.
func kindName(first byte) string {
	switch first {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}
