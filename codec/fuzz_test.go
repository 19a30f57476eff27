package codec

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

// The fuzzers check this package against the code it imitates: encoding/json
// for syntax and strings, hexutil and common for hex values, and the copied
// geth decoders in geth_ref_test.go for block parameters and call objects.
// Seeds are added here and kept in testdata/fuzz/<FuzzName>.

func FuzzValid(f *testing.F) {
	for _, s := range validJSON {
		f.Add([]byte(s))
	}
	for _, s := range invalidJSON {
		f.Add([]byte(s))
	}
	f.Add(getBalanceBody)
	f.Add(callBody)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := Valid(data), json.Valid(data)
		if want && depthOf(data) > MaxDepth {
			if got {
				t.Fatalf("Valid(%q) accepted nesting deeper than MaxDepth", data)
			}
			return
		}
		if got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		end, err := SkipValue(data, 0)
		if got && (err != nil || skipSpace(data, end) != len(data)) {
			t.Fatalf("SkipValue(%q) = %d, %v on valid input", data, end, err)
		}
		// Iterating a container to its end succeeds exactly when it is valid.
		if i := skipSpace(data, 0); i < len(data) && (data[i] == '[' || data[i] == '{') {
			var iterErr error
			var n int
			if data[i] == '[' {
				it, _ := Array(data)
				for it.Next() {
					if !json.Valid(it.Value()) {
						t.Fatalf("Array(%q) yielded invalid element %q", data, it.Value())
					}
					n++
				}
				iterErr = it.Err()
			} else {
				it, _ := Object(data)
				for it.Next() {
					if !json.Valid(it.Value()) || !json.Valid([]byte(`"`+string(it.Key())+`"`)) {
						t.Fatalf("Object(%q) yielded invalid member %q: %q", data, it.Key(), it.Value())
					}
					n++
				}
				iterErr = it.Err()
			}
			if (iterErr == nil) != got {
				t.Fatalf("iterating %q: error %v, but Valid = %v", data, iterErr, got)
			}
			if got {
				var elems []json.RawMessage
				var members map[string]json.RawMessage
				if data[i] == '[' && json.Unmarshal(data, &elems) == nil && len(elems) != n {
					t.Fatalf("Array(%q) yielded %d elements, encoding/json %d", data, n, len(elems))
				}
				if data[i] == '{' && json.Unmarshal(data, &members) == nil && len(members) > n {
					t.Fatalf("Object(%q) yielded %d members, encoding/json %d distinct", data, n, len(members))
				}
			}
		}
	})
}

func FuzzScanRequest(f *testing.F) {
	f.Add(getBalanceBody)
	f.Add(callBody)
	f.Add([]byte(`{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"]}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"m","params":{"a":1}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"method":"m","params":null}`))
	f.Add([]byte(`{"jsonrpc":"1.0","id":{},"method":1}`))
	f.Add([]byte(`{"id":1,"id":2,"method":"a\u0062"}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"m"}]`))
	f.Add([]byte(`{"id":1,"method":"m"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var req Request
		cerr := ScanRequest(data, &req)
		valid := json.Valid(data)
		shallow := depthOf(data) <= MaxDepth
		switch {
		case cerr == ErrParse:
			if valid && shallow {
				t.Fatalf("ScanRequest(%q): parse error on valid JSON", data)
			}
			if req.ID != nil {
				t.Fatalf("ScanRequest(%q): parse error with an id", data)
			}
		case !valid:
			t.Fatalf("ScanRequest(%q) = %v on invalid JSON", data, cerr)
		}
		if req.ID != nil && (!json.Valid(req.ID) || bytes.IndexByte([]byte("{[tf"), req.ID[0]) >= 0) {
			t.Fatalf("ScanRequest(%q): bad id %q", data, req.ID)
		}
		// Any id it hands back must make a valid response.
		if out := AppendResultEnd(append(AppendResultStart(nil, req.ID), "null"...)); !json.Valid(out) {
			t.Fatalf("response for %q is invalid: %s", data, out)
		}
		if out := AppendError(nil, req.ID, ErrInvalidRequest); !json.Valid(out) {
			t.Fatalf("error response for %q is invalid: %s", data, out)
		}
		if cerr != nil {
			return
		}
		if len(req.Method) == 0 || bytes.IndexByte(req.Method, '\\') >= 0 {
			t.Fatalf("ScanRequest(%q): bad method %q", data, req.Method)
		}
		if req.Params != nil && (!json.Valid(req.Params) || (req.Params[0] != '[' && req.Params[0] != '{')) {
			t.Fatalf("ScanRequest(%q): bad params %q", data, req.Params)
		}
		// Round trip against encoding/json (whose keys are unescaped, so only
		// for input without escapes; a map keeps the last duplicate, as we do).
		if bytes.IndexByte(data, '\\') >= 0 {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("ScanRequest(%q) accepted what encoding/json rejects: %v", data, err)
		}
		var method string
		unquoted, _ := appendUnquoted(nil, req.Method) // invalid UTF-8 reads as U+FFFD there
		if err := json.Unmarshal(m["method"], &method); err != nil || method != string(unquoted) {
			t.Fatalf("ScanRequest(%q): method %q, encoding/json %q (%v)", data, req.Method, method, err)
		}
		if id, ok := m["id"]; ok != (req.ID != nil) || string(id) != string(req.ID) {
			t.Fatalf("ScanRequest(%q): id %q, encoding/json %q", data, req.ID, id)
		}
		if p := m["params"]; string(p) != string(req.Params) && !(string(p) == "null" && req.Params == nil) {
			t.Fatalf("ScanRequest(%q): params %q, encoding/json %q", data, req.Params, p)
		}
		if v, ok := m["jsonrpc"]; req.Version != ok || (ok && string(v) != `"2.0"`) {
			t.Fatalf("ScanRequest(%q): version %v, encoding/json %q", data, req.Version, v)
		}
	})
}

// hexSeeds are quantity and data strings around every rule.
var hexSeeds = []string{
	"", "0x", "0X", "0x0", "0x00", "0x01", "0x1", "0x1a", "0x1A", "0X1a", "1a", "-0x1", "+0x1", "0x-1",
	"0xg", "0x 1", "0x1_0", "0xffffffffffffffff", "0x10000000000000000", "0xzzzzzzzzzzzzzzzzz",
	"0x" + "1" + string(make([]byte, 63)), "0x70a08231", "0x0aff", "0x0", `0x\u0031`, "0x\x00", "0xé",
	"0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"0x10000000000000000000000000000000000000000000000000000000000000000",
}

func FuzzParseUint64(f *testing.F) {
	for _, s := range hexSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(`"` + s + `"`)
		checkUint64AgainstGeth(t, raw)
		if s == "" {
			return // hexutil.Uint64 takes "" as 0, DecodeUint64 rejects it
		}
		got, err := ParseUint64(raw)
		want, werr := hexutil.DecodeUint64(s)
		if (err == nil) != (werr == nil) || (err == nil && got != want) {
			t.Fatalf("ParseUint64(%q) = %d, %v; hexutil.DecodeUint64 says %d, %v", raw, got, err, want, werr)
		}
	})
}

func FuzzParseUint256(f *testing.F) {
	for _, s := range hexSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(`"` + s + `"`)
		checkUint256AgainstGeth(t, raw)
		if s == "" {
			return // hexutil.Big takes "" as 0, DecodeBig rejects it
		}
		var got uint256.Int
		err := ParseUint256(raw, &got)
		want, werr := hexutil.DecodeBig(s)
		if (err == nil) != (werr == nil) || (err == nil && got.ToBig().Cmp(want) != 0) {
			t.Fatalf("ParseUint256(%q) = %v, %v; hexutil.DecodeBig says %v, %v", raw, &got, err, want, werr)
		}
		if err == nil {
			if back := AppendUint256(nil, &got); string(back) != `"`+hexutil.EncodeBig(want)+`"` {
				t.Fatalf("AppendUint256 wrote %s for %v", back, want)
			}
		}
	})
}

func FuzzAppendData(f *testing.F) {
	for _, s := range hexSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(`"` + s + `"`)
		checkDataAgainstGeth(t, raw)
		checkFixedAgainstGeth(t, raw)
		if s == "" {
			return // hexutil.Bytes takes "" as empty, Decode rejects it
		}
		got, err := AppendData([]byte{0xaa}, raw)
		want, werr := hexutil.Decode(s)
		if (err == nil) != (werr == nil) || got[0] != 0xaa || (err == nil && !bytes.Equal(got[1:], want)) || (err != nil && len(got) != 1) {
			t.Fatalf("AppendData(%q) = %x, %v; hexutil.Decode says %x, %v", raw, got, err, want, werr)
		}
		if err == nil {
			if back := AppendBytes(nil, want); string(back) != `"`+hexutil.Encode(want)+`"` {
				t.Fatalf("AppendBytes wrote %s for %x", back, want)
			}
		}
	})
}

// checkFixedAgainstGeth compares ParseAddress and ParseHash with geth.
func checkFixedAgainstGeth(t *testing.T, raw []byte) {
	t.Helper()
	a, err := ParseAddress(raw)
	var wa common.Address
	werr := wa.UnmarshalJSON(raw)
	if errText(err) != unwrapTypeError(werr) || a != wa {
		t.Fatalf("ParseAddress(%q) = %x, %v; geth says %x, %v", raw, a, err, wa, werr)
	}
	h, err := ParseHash(raw)
	var wh common.Hash
	werr = wh.UnmarshalJSON(raw)
	if errText(err) != unwrapTypeError(werr) || h != wh {
		t.Fatalf("ParseHash(%q) = %x, %v; geth says %x, %v", raw, h, err, wh, werr)
	}
}

func FuzzParseBlockParam(f *testing.F) {
	for _, tt := range blockParamTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseBlockParam(data)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("ParseBlockParam(%q) = %+v on invalid JSON", data, got)
			}
			return
		}
		if depthOf(data) > MaxDepth {
			return // geth ignores deep unknown members; we refuse them
		}
		want, werr := refBlockParam(data)
		if errText(err) != errText(werr) || got != want {
			t.Fatalf("ParseBlockParam(%q) = %+v, %v; geth says %+v, %v", data, got, err, want, werr)
		}
	})
}

func FuzzParseCallArgs(f *testing.F) {
	f.Add([]byte(`{"to":"0x5fbdb2315678afecb367f032d93f642f64180aa3","data":"0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"}`))
	f.Add([]byte(`{"from":"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266","gas":"0x5208","gasPrice":"0x1","value":"0x0","nonce":"0x0","input":"0x","chainId":"0x1"}`))
	f.Add([]byte(`{"maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1","maxFeePerBlobGas":"0x1","blobVersionedHashes":[],"accessList":[],"authorizationList":[]}`))
	f.Add([]byte(`{"data":"0x01","input":"0x01","DATA":null,"G\u0061s":"0x1"}`))
	f.Add([]byte(`{"data":"0x01","input":"0x02"}`))
	f.Add([]byte(`{"gas":21000}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var args CallArgs
		err := ParseCallArgs(data, &args)
		if err == nil && !json.Valid(data) {
			t.Fatalf("ParseCallArgs(%q) accepted invalid JSON", data)
		}
		if !json.Valid(data) || depthOf(data) > MaxDepth {
			return
		}
		want, werr := refCallArgs(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("ParseCallArgs(%q) error %v; geth's decoding says %v", data, err, werr)
		}
		if err == nil && !callArgsEqual(&args, &want) {
			t.Fatalf("ParseCallArgs(%q) =\n%+v\ngeth's decoding says\n%+v", data, args, want)
		}
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "<>&", "\x00\x1f\x7f", "\u2028", "\xff", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}
