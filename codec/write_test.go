package codec

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

func TestAppendResult(t *testing.T) {
	tests := []struct {
		id     string
		result string
		want   string
	}{
		{`1`, `"0x1"`, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`},
		{`"abc"`, `null`, `{"jsonrpc":"2.0","id":"abc","result":null}`},
		{`null`, `[]`, `{"jsonrpc":"2.0","id":null,"result":[]}`},
		{``, `true`, `{"jsonrpc":"2.0","id":null,"result":true}`}, // nil id
	}
	for _, tt := range tests {
		var id []byte
		if tt.id != "" {
			id = []byte(tt.id)
		}
		got := AppendResultEnd(append(AppendResultStart([]byte("x"), id), tt.result...))
		if string(got) != "x"+tt.want {
			t.Errorf("result for id %q = %s, want x%s", tt.id, got, tt.want)
		}
	}
}

func TestAppendError(t *testing.T) {
	tests := []struct {
		id   []byte
		err  *Error
		want string
	}{
		{nil, ErrParse, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{[]byte(`7`), ErrInvalidRequest, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request"}}`},
		{[]byte(`"a"`), &Error{Code: CodeMethodNotFound, Message: `the method "x<y>" does not exist`},
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"the method \"x\u003cy\u003e\" does not exist"}}`},
		{[]byte(`1`), &Error{Code: CodeServer, Message: "execution reverted", Data: []byte(`"0x08c379a0"`)},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted","data":"0x08c379a0"}}`},
		{[]byte(`1`), &Error{Code: CodeInvalidParams, Message: "", Data: []byte(`{}`)},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"","data":{}}}`},
	}
	for _, tt := range tests {
		got := AppendError(nil, tt.id, tt.err)
		if string(got) != tt.want {
			t.Errorf("AppendError(%s, %+v) =\n%s\nwant\n%s", tt.id, tt.err, got, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("AppendError wrote invalid JSON: %s", got)
		}
	}
}

func TestAppendErrorRoundTrip(t *testing.T) {
	out := AppendError(nil, []byte(`"id-1"`), &Error{Code: -32005, Message: "limit \"exceeded\"\n", Data: []byte(`[1]`)})
	var msg struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Version != "2.0" || string(msg.ID) != `"id-1"` || msg.Error.Code != -32005 ||
		msg.Error.Message != "limit \"exceeded\"\n" || string(msg.Error.Data) != `[1]` {
		t.Fatalf("round trip = %+v", msg)
	}
}

func TestAppendQuantities(t *testing.T) {
	tests := []struct {
		v    uint64
		want string
	}{
		{0, `"0x0"`},
		{1, `"0x1"`},
		{0xf, `"0xf"`},
		{0x10, `"0x10"`},
		{0x1a, `"0x1a"`},
		{0xde0b6b3a7640000, `"0xde0b6b3a7640000"`},
		{1<<64 - 1, `"0xffffffffffffffff"`},
	}
	for _, tt := range tests {
		if got := string(AppendUint64(nil, tt.v)); got != tt.want {
			t.Errorf("AppendUint64(%d) = %s, want %s", tt.v, got, tt.want)
		}
		if got := string(AppendUint256(nil, uint256.NewInt(tt.v))); got != tt.want {
			t.Errorf("AppendUint256(%d) = %s, want %s", tt.v, got, tt.want)
		}
		if got := string(AppendBig(nil, new(big.Int).SetUint64(tt.v))); got != tt.want {
			t.Errorf("AppendBig(%d) = %s, want %s", tt.v, got, tt.want)
		}
		if want, _ := json.Marshal(hexutil.Uint64(tt.v)); string(AppendUint64(nil, tt.v)) != string(want) {
			t.Errorf("AppendUint64(%d) differs from hexutil.Uint64: %s", tt.v, want)
		}
		v, err := ParseUint64(AppendUint64(nil, tt.v))
		if err != nil || v != tt.v {
			t.Errorf("ParseUint64(AppendUint64(%d)) = %d, %v", tt.v, v, err)
		}
	}
}

func TestAppendBigValues(t *testing.T) {
	for _, s := range []string{
		"1", "ffffffffffffffff", "10000000000000000", "123456789abcdef0123456789abcdef",
		"1" + strings.Repeat("0", 63), strings.Repeat("f", 64), "1" + strings.Repeat("0", 64), // > 256 bits is written too
	} {
		for _, neg := range []bool{false, true} {
			b, _ := new(big.Int).SetString(s, 16)
			if neg {
				b.Neg(b)
			}
			want := `"` + hexutil.EncodeBig(b) + `"`
			if got := string(AppendBig(nil, b)); got != want {
				t.Errorf("AppendBig(%s) = %s, want %s", b, got, want)
			}
			if neg || b.BitLen() > 256 {
				continue
			}
			u := uint256.MustFromBig(b)
			if got := string(AppendUint256(nil, u)); got != want {
				t.Errorf("AppendUint256(%s) = %s, want %s", b, got, want)
			}
			var back uint256.Int
			if err := ParseUint256(AppendUint256(nil, u), &back); err != nil || !back.Eq(u) {
				t.Errorf("ParseUint256(AppendUint256(%s)) = %v, %v", b, &back, err)
			}
		}
	}
	if got := string(AppendBig(nil, nil)); got != "null" {
		t.Errorf("AppendBig(nil) = %s", got)
	}
	if got := string(AppendUint256(nil, nil)); got != "null" {
		t.Errorf("AppendUint256(nil) = %s", got)
	}
	if got := string(AppendBig(nil, new(big.Int))); got != `"0x0"` {
		t.Errorf("AppendBig(0) = %s", got)
	}
}

func TestAppendBytes(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{nil, `"0x"`},
		{[]byte{}, `"0x"`},
		{[]byte{0}, `"0x00"`},
		{[]byte{0x0a, 0xff}, `"0x0aff"`},
	}
	for _, tt := range tests {
		if got := string(AppendBytes(nil, tt.in)); got != tt.want {
			t.Errorf("AppendBytes(%x) = %s, want %s", tt.in, got, tt.want)
		}
		back, err := AppendData(nil, []byte(tt.want))
		if err != nil || string(back) != string(tt.in) {
			t.Errorf("AppendData(AppendBytes(%x)) = %x, %v", tt.in, back, err)
		}
	}
	addr := common.HexToAddress(testFrom)
	if got, want := string(AppendAddress(nil, addr)), `"`+testFrom+`"`; got != want {
		t.Errorf("AppendAddress = %s, want %s", got, want)
	}
	if want, _ := json.Marshal(addr); string(AppendAddress(nil, addr)) != string(want) {
		t.Errorf("AppendAddress differs from geth's JSON %s", want)
	}
	if back, err := ParseAddress(AppendAddress(nil, addr)); err != nil || back != addr {
		t.Errorf("ParseAddress(AppendAddress) = %x, %v", back, err)
	}
	hash := common.HexToHash(testHash)
	if want, _ := json.Marshal(hash); string(AppendHash(nil, hash)) != string(want) {
		t.Errorf("AppendHash = %s, geth's JSON %s", AppendHash(nil, hash), want)
	}
	if back, err := ParseHash(AppendHash(nil, hash)); err != nil || back != hash {
		t.Errorf("ParseHash(AppendHash) = %x, %v", back, err)
	}
}

func TestAppendString(t *testing.T) {
	tests := []string{
		"", "plain", `quote " and \ backslash`, "ctl \x00\x01\x1f\x7f", "\b\f\n\r\t",
		"<script>&amp;</script>", "é ü 日本 😀", "bad \xff utf8 \xc3", "\u2028\u2029",
		"execution reverted: ERC20: transfer amount exceeds balance",
	}
	for _, s := range tests {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	}
	if got := string(AppendString([]byte("x"), `a"`)); got != `x"a\""` {
		t.Errorf("AppendString must append, got %s", got)
	}
}

func TestAppendBool(t *testing.T) {
	if got := string(AppendBool(AppendBool(nil, true), false)); got != "truefalse" {
		t.Errorf("AppendBool = %s", got)
	}
}

// TestAppendHexEveryByte runs every byte value through every lane of the
// word-at-a-time encoder and its tail, against encoding/hex.
func TestAppendHexEveryByte(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for off := range 17 {
		src := all[off:]
		if got, want := string(appendHex([]byte("x"), src)), "x"+hex.EncodeToString(src); got != want {
			t.Fatalf("appendHex(all[%d:]) = %s, want %s", off, got, want)
		}
	}
}
