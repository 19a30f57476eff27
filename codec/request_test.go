package codec

import (
	"strings"
	"testing"
)

func TestScanRequest(t *testing.T) {
	tests := []struct {
		in      string
		want    Request // slices compared as strings; nil vs empty matters
		wantErr *Error
	}{
		{
			in:   `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","latest"]}`,
			want: Request{ID: []byte(`1`), Method: []byte(`eth_getBalance`), Params: []byte(`["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","latest"]`), Version: true},
		},
		{
			in:   " {\n \"params\" : { \"a\" : 1 } , \"method\" : \"m\" , \"id\" : \"abc\" , \"jsonrpc\" : \"2.0\" } \n",
			want: Request{ID: []byte(`"abc"`), Method: []byte(`m`), Params: []byte(`{ "a" : 1 }`), Version: true},
		},
		{in: `{"jsonrpc":"2.0","method":"m"}`, want: Request{Method: []byte(`m`), Version: true}}, // a notification
		{in: `{"jsonrpc":"2.0","id":null,"method":"m"}`, want: Request{ID: []byte(`null`), Method: []byte(`m`), Version: true}},
		{in: `{"jsonrpc":"2.0","id":-1.5e3,"method":"m","params":null}`, want: Request{ID: []byte(`-1.5e3`), Method: []byte(`m`), Version: true}},
		{in: `{"id":7,"method":"m","params":[]}`, want: Request{ID: []byte(`7`), Method: []byte(`m`), Params: []byte(`[]`)}},
		{in: `{"id":1,"id":2,"method":"a","method":"b","x":{"y":[1]}}`, want: Request{ID: []byte(`2`), Method: []byte(`b`)}},
		{in: `{"id":"a\"b","method":"m"}`, want: Request{ID: []byte(`"a\"b"`), Method: []byte(`m`)}},

		// parse errors
		{in: ``, wantErr: ErrParse},
		{in: `{`, wantErr: ErrParse},
		{in: `{"id":1,"method":"m"`, wantErr: ErrParse},
		{in: `{"id":1,"method":"m"} x`, wantErr: ErrParse},
		{in: `{"id":1,"method":"m",}`, wantErr: ErrParse},
		{in: `nonsense`, wantErr: ErrParse},
		{in: `{"id":1,"method":"m","params":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`, wantErr: ErrParse},

		// invalid requests
		{in: `[]`, wantErr: ErrInvalidRequest},
		{in: `"str"`, wantErr: ErrInvalidRequest},
		{in: `null`, wantErr: ErrInvalidRequest},
		{in: `{}`, wantErr: ErrInvalidRequest},
		{in: `{"id":1}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":1}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":""}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":null}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":"eth_\u0063all"}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":{},"method":"m"}`, wantErr: ErrInvalidRequest},
		{in: `{"id":[1],"method":"m"}`, wantErr: ErrInvalidRequest},
		{in: `{"id":true,"method":"m"}`, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":"m","params":"x"}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":"m","params":1}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"id":1,"method":"m","params":false}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"jsonrpc":"1.0","id":1,"method":"m"}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"jsonrpc":2.0,"id":1,"method":"m"}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"jsonrpc":null,"id":1,"method":"m"}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
		{in: `{"jsonrpc":"2.0","Method":"m","id":1}`, want: Request{ID: []byte(`1`)}, wantErr: ErrInvalidRequest},
	}
	for _, tt := range tests {
		// Start dirty: ScanRequest must reset everything.
		req := Request{ID: []byte("stale"), Method: []byte("stale"), Params: []byte("stale"), Version: true}
		err := ScanRequest([]byte(tt.in), &req)
		if err != tt.wantErr {
			t.Errorf("ScanRequest(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			continue
		}
		if !sameBytes(req.ID, tt.want.ID) || !sameBytes(req.Method, tt.want.Method) ||
			!sameBytes(req.Params, tt.want.Params) || req.Version != tt.want.Version {
			t.Errorf("ScanRequest(%q) = {ID:%q Method:%q Params:%q Version:%v}, want {ID:%q Method:%q Params:%q Version:%v}",
				tt.in, req.ID, req.Method, req.Params, req.Version,
				tt.want.ID, tt.want.Method, tt.want.Params, tt.want.Version)
		}
	}
}

// sameBytes compares as strings but tells nil from empty.
func sameBytes(a, b []byte) bool {
	return (a == nil) == (b == nil) && string(a) == string(b)
}

func TestIsBatch(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`[]`, true},
		{" \t\r\n[{}]", true},
		{`[`, true}, // no validation
		{`{}`, false},
		{` {"a":[]}`, false},
		{``, false},
		{`   `, false},
	}
	for _, tt := range tests {
		if got := IsBatch([]byte(tt.in)); got != tt.want {
			t.Errorf("IsBatch(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestErrorValues(t *testing.T) {
	tests := []struct {
		err  *Error
		code int
		msg  string
	}{
		{ErrParse, -32700, "parse error"},
		{ErrInvalidRequest, -32600, "invalid request"},
	}
	for _, tt := range tests {
		if tt.err.Code != tt.code || tt.err.Error() != tt.msg || tt.err.Data != nil {
			t.Errorf("%+v, want code %d message %q", tt.err, tt.code, tt.msg)
		}
	}
	codes := map[int]int{
		CodeParse: -32700, CodeInvalidRequest: -32600, CodeMethodNotFound: -32601,
		CodeInvalidParams: -32602, CodeInternal: -32603, CodeServer: -32000,
		CodeResponseTooLarge: -32003, CodeLimitExceeded: -32005,
	}
	for got, want := range codes {
		if got != want {
			t.Errorf("code %d, want %d", got, want)
		}
	}
}
