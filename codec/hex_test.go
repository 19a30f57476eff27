package codec

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

// errText renders an error for table comparisons; "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// hexutil's messages, spelled out so that a change in either side shows.
const (
	msgMissingPrefix = "hex string without 0x prefix"
	msgOddLength     = "hex string of odd length"
	msgLeadingZero   = "hex number with leading zero digits"
	msgEmptyNumber   = `hex string "0x"`
	msgSyntax        = "invalid hex string"
	msgUint64Range   = "hex number > 64 bits"
	msgBig256Range   = "hex number > 256 bits"
	msgEmptyString   = "empty hex string"
)

func TestParseUint64(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		err  string
	}{
		{`"0x0"`, 0, ""},
		{`"0x1"`, 1, ""},
		{`"0x1a"`, 0x1a, ""},
		{`"0x1A"`, 0x1a, ""},
		{`"0X1a"`, 0x1a, ""}, // hexutil accepts 0X too
		{`"0xffffffffffffffff"`, 1<<64 - 1, ""},
		{`"0xFFFFFFFFFFFFFFFF"`, 1<<64 - 1, ""},
		{` "0x10" `, 16, ""},
		{`""`, 0, ""}, // as geth's hexutil.Uint64
		{`"0x"`, 0, msgEmptyNumber},
		{`"0x01"`, 0, msgLeadingZero},
		{`"0x00"`, 0, msgLeadingZero},
		{`"1a"`, 0, msgMissingPrefix},
		{`"0"`, 0, msgMissingPrefix},
		{`"-0x1"`, 0, msgMissingPrefix},
		{`"x1"`, 0, msgMissingPrefix},
		{`"0xg"`, 0, msgSyntax},
		{`"0x1 "`, 0, msgSyntax},
		{`"0x\u0031"`, 0, msgSyntax}, // escapes are not decoded, as in geth
		{`"0x10000000000000000"`, 0, msgUint64Range},
		{`"0xzzzzzzzzzzzzzzzzz"`, 0, msgUint64Range}, // length is checked before syntax, as in geth
		{`1`, 0, "json: cannot unmarshal non-string into Go value of type hexutil.Uint64"},
		{`null`, 0, "json: cannot unmarshal non-string into Go value of type hexutil.Uint64"},
		{`"0x1`, 0, "json: cannot unmarshal non-string into Go value of type hexutil.Uint64"},
		{``, 0, "json: cannot unmarshal non-string into Go value of type hexutil.Uint64"},
	}
	for _, tt := range tests {
		got, err := ParseUint64([]byte(tt.in))
		if errText(err) != tt.err || got != tt.want {
			t.Errorf("ParseUint64(%s) = %d, %q; want %d, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		checkUint64AgainstGeth(t, []byte(tt.in))
	}
	if _, err := ParseUint64([]byte(`"0x"`)); !errors.Is(err, hexutil.ErrEmptyNumber) {
		t.Errorf("errors must be hexutil's values, got %#v", err)
	}
}

// checkUint64AgainstGeth compares with hexutil.Uint64's UnmarshalJSON on the
// same raw value: same value, same error but for geth's type wrapping.
func checkUint64AgainstGeth(t *testing.T, raw []byte) {
	t.Helper()
	got, err := ParseUint64(raw)
	var want hexutil.Uint64
	gerr := want.UnmarshalJSON(trimSpace(raw))
	if errText(err) != unwrapTypeError(gerr) || (err == nil && got != uint64(want)) {
		t.Errorf("ParseUint64(%q) = %d, %v; hexutil says %d, %v", raw, got, err, want, gerr)
	}
}

// unwrapTypeError returns the text of the error hexutil wrapped into a
// json.UnmarshalTypeError (its Value), or the error's own text.
func unwrapTypeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Value != "non-string" {
		return te.Value
	}
	return errText(err)
}

func TestParseUint256(t *testing.T) {
	max256 := `"0x` + strings.Repeat("f", 64) + `"`
	tests := []struct {
		in   string
		want string // hex, as big.Int prints it
		err  string
	}{
		{`"0x0"`, "0", ""},
		{`"0x1a"`, "1a", ""},
		{`"0xDE0B6B3A7640000"`, "de0b6b3a7640000", ""},
		{`"0x10000000000000000"`, "10000000000000000", ""},
		{`"0x123456789abcdef0123456789abcdef0"`, "123456789abcdef0123456789abcdef0", ""},
		{max256, strings.Repeat("f", 64), ""},
		{`""`, "0", ""},
		{`"0x` + "1" + strings.Repeat("0", 64) + `"`, "0", msgBig256Range},
		{`"0x` + strings.Repeat("z", 65) + `"`, "0", msgBig256Range},
		{`"0x"`, "0", msgEmptyNumber},
		{`"0x0001"`, "0", msgLeadingZero},
		{`"100"`, "0", msgMissingPrefix},
		{`"0x1g"`, "0", msgSyntax},
		{`1`, "0", "json: cannot unmarshal non-string into Go value of type *hexutil.Big"},
	}
	for _, tt := range tests {
		var z uint256.Int
		z.SetUint64(7) // must be overwritten on success, kept on error
		err := ParseUint256([]byte(tt.in), &z)
		want := tt.want
		if tt.err != "" {
			want = "7"
		}
		if errText(err) != tt.err || z.ToBig().Text(16) != want {
			t.Errorf("ParseUint256(%s) = %s, %q; want %s, %q", tt.in, z.ToBig().Text(16), errText(err), want, tt.err)
		}
		checkUint256AgainstGeth(t, []byte(tt.in))
	}
}

func checkUint256AgainstGeth(t *testing.T, raw []byte) {
	t.Helper()
	var got uint256.Int
	err := ParseUint256(raw, &got)
	var want hexutil.Big
	gerr := want.UnmarshalJSON(raw)
	if errText(err) != unwrapTypeError(gerr) || (err == nil && got.ToBig().Cmp(want.ToInt()) != 0) {
		t.Errorf("ParseUint256(%q) = %v, %v; hexutil says %v, %v", raw, &got, err, &want, gerr)
	}
}

func TestAppendData(t *testing.T) {
	tests := []struct {
		in   string
		want string // hex of the appended bytes
		err  string
	}{
		{`"0x"`, "", ""},
		{`""`, "", ""}, // as geth's hexutil.Bytes
		{`"0x00"`, "00", ""},
		{`"0x0aFf"`, "0aff", ""},
		{`"0X0102"`, "0102", ""},
		{`"0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"`, "70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266", ""},
		{`"0x0"`, "", msgOddLength},
		{`"0xzzz"`, "", msgOddLength}, // length before syntax, as hexutil.Bytes
		{`"00"`, "", msgMissingPrefix},
		{`"0x0g"`, "", msgSyntax},
		{`"0xg0"`, "", msgSyntax},
		{`"0x\u00"`, "", msgSyntax},
		{`[]`, "", "json: cannot unmarshal non-string into Go value of type hexutil.Bytes"},
	}
	for _, tt := range tests {
		prefix := []byte("keep")
		got, err := AppendData(prefix, []byte(tt.in))
		if errText(err) != tt.err {
			t.Errorf("AppendData(%s) error = %q, want %q", tt.in, errText(err), tt.err)
			continue
		}
		if string(got[:4]) != "keep" || common.Bytes2Hex(got[4:]) != tt.want {
			t.Errorf("AppendData(%s) = %q, want keep + %s", tt.in, got, tt.want)
		}
		checkDataAgainstGeth(t, []byte(tt.in))
	}
}

func checkDataAgainstGeth(t *testing.T, raw []byte) {
	t.Helper()
	got, err := AppendData(nil, raw)
	var want hexutil.Bytes
	gerr := want.UnmarshalJSON(raw)
	if errText(err) != unwrapTypeError(gerr) || (err == nil && !bytes.Equal(got, want)) {
		t.Errorf("AppendData(%q) = %x, %v; hexutil says %x, %v", raw, got, err, want, gerr)
	}
}

func TestAppendDataReusesCapacity(t *testing.T) {
	buf := make([]byte, 0, 64)
	out, err := AppendData(buf, []byte(`"0x0102"`))
	if err != nil || &out[0] != &buf[:1][0] {
		t.Fatalf("AppendData must decode into spare capacity (err %v)", err)
	}
}

func TestParseAddress(t *testing.T) {
	const addr = "70997970c51812dc3a010c7d01b50e0d17dc79c8"
	tests := []struct {
		in   string
		want string
		err  string
	}{
		{`"0x` + addr + `"`, addr, ""},
		{`"0x` + strings.ToUpper(addr) + `"`, addr, ""},
		{`"0X` + addr + `"`, addr, ""},
		{`"0x` + addr[:38] + `"`, "", "hex string has length 38, want 40 for common.Address"},
		{`"0x` + addr + `00"`, "", "hex string has length 42, want 40 for common.Address"},
		{`""`, "", "hex string has length 0, want 40 for common.Address"},
		{`"0x"`, "", "hex string has length 0, want 40 for common.Address"},
		{`"0x` + addr[:39] + `"`, "", msgOddLength},
		{`"` + addr + `"`, "", msgMissingPrefix},
		{`"0x` + addr[:39] + `g"`, "", msgSyntax},
		{`1`, "", "json: cannot unmarshal non-string into Go value of type common.Address"},
	}
	for _, tt := range tests {
		got, err := ParseAddress([]byte(tt.in))
		if errText(err) != tt.err || (err == nil && common.Bytes2Hex(got[:]) != tt.want) || (err != nil && got != common.Address{}) {
			t.Errorf("ParseAddress(%s) = %x, %q; want %s, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		var want common.Address
		gerr := want.UnmarshalJSON([]byte(tt.in))
		if errText(err) != unwrapTypeError(gerr) || got != want {
			t.Errorf("ParseAddress(%s) = %x, %v; geth says %x, %v", tt.in, got, err, want, gerr)
		}
	}
}

func TestParseHash(t *testing.T) {
	const hash = "88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6"
	tests := []struct {
		in   string
		want string
		err  string
	}{
		{`"0x` + hash + `"`, hash, ""},
		{`"0x` + hash[:62] + `"`, "", "hex string has length 62, want 64 for common.Hash"},
		{`"` + hash + `"`, "", msgMissingPrefix},
		{`"0x` + hash[:63] + `"`, "", msgOddLength},
		{`"0x` + hash[:63] + `x"`, "", msgSyntax},
		{`{}`, "", "json: cannot unmarshal non-string into Go value of type common.Hash"},
	}
	for _, tt := range tests {
		got, err := ParseHash([]byte(tt.in))
		if errText(err) != tt.err || (err == nil && common.Bytes2Hex(got[:]) != tt.want) {
			t.Errorf("ParseHash(%s) = %x, %q; want %s, %q", tt.in, got, errText(err), tt.want, tt.err)
		}
		var want common.Hash
		gerr := want.UnmarshalJSON([]byte(tt.in))
		if errText(err) != unwrapTypeError(gerr) || got != want {
			t.Errorf("ParseHash(%s) = %x, %v; geth says %x, %v", tt.in, got, err, want, gerr)
		}
	}
}

// TestQuantityStringFunctions pins down where the JSON rules used here
// differ from hexutil's string functions, which the fuzzers allow for.
func TestQuantityStringFunctions(t *testing.T) {
	if _, err := hexutil.DecodeUint64(""); err != hexutil.ErrEmptyString {
		t.Errorf("DecodeUint64(\"\") = %v", err)
	}
	if v, err := ParseUint64([]byte(`""`)); v != 0 || err != nil {
		t.Errorf(`ParseUint64("") = %d, %v; want 0 as hexutil.Uint64`, v, err)
	}
	if _, err := hexutil.DecodeBig(""); err != hexutil.ErrEmptyString {
		t.Errorf("DecodeBig(\"\") = %v", err)
	}
	var z uint256.Int
	if err := ParseUint256([]byte(`""`), &z); err != nil || !z.IsZero() {
		t.Errorf(`ParseUint256("") = %v, %v`, &z, err)
	}
	// Big numbers agree.
	want, _ := new(big.Int).SetString("123456789abcdef0fedcba9876543210", 16)
	if err := ParseUint256([]byte(`"0x123456789abcdef0fedcba9876543210"`), &z); err != nil || z.ToBig().Cmp(want) != 0 {
		t.Errorf("ParseUint256 = %v, %v", &z, err)
	}
}

// TestDecodeHexEveryByte puts every byte value at every position of the
// word-at-a-time decoder and of its tail, against encoding/hex.
func TestDecodeHexEveryByte(t *testing.T) {
	for n := 2; n <= 24; n += 2 {
		for pos := range n {
			for c := range 256 {
				src := []byte(strings.Repeat("a0", n/2))
				src[pos] = byte(c)
				got := make([]byte, n/2)
				ok := decodeHex(got, src)
				want, err := hex.DecodeString(string(src))
				if ok != (err == nil) || (ok && !bytes.Equal(got, want)) {
					t.Fatalf("decodeHex(%q) = %x, %v; encoding/hex says %x, %v", src, got, ok, want, err)
				}
			}
		}
	}
}
