package codec

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

const (
	testFrom = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	testTo   = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
	testCall = "0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
)

func TestParseCallArgs(t *testing.T) {
	full := CallArgs{
		From: common.HexToAddress(testFrom), HasFrom: true,
		To: common.HexToAddress(testTo), HasTo: true,
		Gas: 0x5208, HasGas: true,
		MaxFeePerGas: *uint256.NewInt(0x3b9aca00), HasMaxFeePerGas: true,
		MaxPriorityFeePerGas: *uint256.NewInt(1), HasMaxPriorityFeePerGas: true,
		MaxFeePerBlobGas: *uint256.NewInt(2), HasMaxFeePerBlobGas: true,
		Value: *uint256.MustFromHex("0xde0b6b3a7640000"), HasValue: true,
		Nonce: 7, HasNonce: true,
		Data: common.FromHex(testCall), HasData: true,
		ChainID: *uint256.NewInt(84538453), HasChainID: true,
		AccessList:        []byte(`[{"address":"` + testTo + `","storageKeys":[]}]`),
		AuthorizationList: []byte(`[]`),
		BlobHashes:        []byte(`["` + testHash + `"]`),
	}
	tests := []struct {
		name string
		in   string
		want CallArgs
		err  string
	}{
		{name: "eth_call", in: `{"to":"` + testTo + `","data":"` + testCall + `"}`,
			want: CallArgs{To: common.HexToAddress(testTo), HasTo: true, Data: common.FromHex(testCall), HasData: true}},
		{name: "every field", in: `{"from":"` + testFrom + `","to":"` + testTo + `","gas":"0x5208","maxFeePerGas":"0x3b9aca00",
			"maxPriorityFeePerGas":"0x1","maxFeePerBlobGas":"0x2","value":"0xde0b6b3a7640000","nonce":"0x7","input":"` + testCall + `",
			"chainId":"0x509f455","accessList":[{"address":"` + testTo + `","storageKeys":[]}],"authorizationList":[],
			"blobVersionedHashes":["` + testHash + `"],"blobs":"ignored","unknown":{"x":[1]}}`, want: full},
		{name: "gasPrice", in: `{"gasPrice":"0x1"}`, want: CallArgs{GasPrice: *uint256.NewInt(1), HasGasPrice: true}},
		{name: "empty", in: `{}`},
		{name: "null", in: `null`},
		{name: "whitespace", in: " { \"gas\" : \"0x1\" } ", want: CallArgs{Gas: 1, HasGas: true}},
		{name: "nulls are absent", in: `{"from":null,"to":null,"gas":null,"value":null,"data":null,"input":null,"accessList":null}`},
		{name: "null after value", in: `{"gas":"0x1","gas":null,"input":"0x01","input":null}`},
		{name: "last wins", in: `{"gas":"0x1","gas":"0x2"}`, want: CallArgs{Gas: 2, HasGas: true}},
		{name: "case folds", in: `{"TO":"` + testTo + `","Gas":"0x1"}`, want: CallArgs{To: common.HexToAddress(testTo), HasTo: true, Gas: 1, HasGas: true}},
		{name: "escaped name", in: `{"g\u0061s":"0x1"}`, want: CallArgs{Gas: 1, HasGas: true}},
		{name: "empty data", in: `{"data":"0x"}`, want: CallArgs{HasData: true}},
		{name: "empty string data", in: `{"input":""}`, want: CallArgs{HasData: true}},
		{name: "input wins", in: `{"data":"0x0102","input":"0x0102"}`, want: CallArgs{Data: []byte{1, 2}, HasData: true}},
		{name: "input wins reversed", in: `{"input":"0x0102","data":"0x0102"}`, want: CallArgs{Data: []byte{1, 2}, HasData: true}},
		{name: "data only after input null", in: `{"input":"0x01","data":"0x02","input":null}`, want: CallArgs{Data: []byte{2}, HasData: true}},

		{name: "data differs", in: `{"data":"0x01","input":"0x02"}`, err: `both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`},
		{name: "gas prefix", in: `{"gas":"5208"}`, err: `invalid value for "gas": hex string without 0x prefix`},
		{name: "gas number", in: `{"gas":21000}`, err: `invalid value for "gas": json: cannot unmarshal non-string into Go value of type hexutil.Uint64`},
		{name: "value range", in: `{"value":"0x1` + strings.Repeat("0", 64) + `"}`, err: `invalid value for "value": hex number > 256 bits`},
		{name: "value big type", in: `{"value":1}`, err: `invalid value for "value": json: cannot unmarshal non-string into Go value of type *hexutil.Big`},
		{name: "to length", in: `{"to":"0x1234"}`, err: `invalid value for "to": hex string has length 4, want 40 for common.Address`},
		{name: "input odd", in: `{"input":"0x123"}`, err: `invalid value for "input": hex string of odd length`},
		{name: "data syntax", in: `{"data":"0xzz"}`, err: `invalid value for "data": invalid hex string`},
		{name: "nonce leading zero", in: `{"nonce":"0x01"}`, err: `invalid value for "nonce": hex number with leading zero digits`},
		{name: "chainId", in: `{"chainId":"0x"}`, err: `invalid value for "chainId": hex string "0x"`},
		{name: "first error wins", in: `{"gas":"x","value":"y"}`, err: `invalid value for "gas": hex string without 0x prefix`},
		{name: "accessList kind", in: `{"accessList":"x"}`, err: `invalid value for "accessList": json: cannot unmarshal string into Go value of type types.AccessList`},
		{name: "blob hashes kind", in: `{"blobVersionedHashes":{}}`, err: `invalid value for "blobVersionedHashes": json: cannot unmarshal object into Go value of type []common.Hash`},
		{name: "not an object", in: `"x"`, err: "json: cannot unmarshal string into Go value of type ethapi.TransactionArgs"},
		{name: "array", in: `[]`, err: "json: cannot unmarshal array into Go value of type ethapi.TransactionArgs"},
		{name: "syntax", in: `{"gas":"0x1",}`, err: ErrInvalidJSON.Error()},
		{name: "truncated", in: `{"gas":"0x1"`, err: ErrUnexpectedEnd.Error()},
		{name: "garbage", in: `{x`, err: ErrInvalidJSON.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Start from a dirty pooled value: everything must be reset.
			args := CallArgs{Data: make([]byte, 3, 128), HasGas: true, Gas: 9, HasTo: true, AccessList: []byte("[]")}
			err := ParseCallArgs([]byte(tt.in), &args)
			if errText(err) != tt.err {
				t.Fatalf("error = %q, want %q", errText(err), tt.err)
			}
			if err != nil {
				if len(args.Data) != 0 || cap(args.Data) < 128 {
					t.Errorf("on error Data must be empty and keep its buffer, got len %d cap %d", len(args.Data), cap(args.Data))
				}
				return
			}
			if cap(args.Data) < 128 {
				t.Errorf("Data lost its buffer: cap %d", cap(args.Data))
			}
			if !callArgsEqual(&args, &tt.want) {
				t.Errorf("got  %+v\nwant %+v", args, tt.want)
			}
			ref, rerr := refCallArgs([]byte(tt.in))
			if rerr != nil || !callArgsEqual(&args, &ref) {
				t.Errorf("geth's decoding says %+v, %v", ref, rerr)
			}
		})
	}
}

// callArgsEqual compares, treating empty and nil Data alike (HasData says
// which it is).
func callArgsEqual(a, b *CallArgs) bool {
	x, y := *a, *b
	if string(x.Data) != string(y.Data) {
		return false
	}
	x.Data, y.Data = nil, nil
	return reflect.DeepEqual(x, y)
}

func TestParseCallArgsFieldError(t *testing.T) {
	var args CallArgs
	err := ParseCallArgs([]byte(`{"gas":"0x"}`), &args)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "gas" || !errors.Is(err, hexutil.ErrEmptyNumber) {
		t.Fatalf("error = %#v, want a *FieldError for gas wrapping hexutil.ErrEmptyNumber", err)
	}
}

func TestParseCallArgsReusesData(t *testing.T) {
	var args CallArgs
	in := []byte(`{"to":"` + testTo + `","data":"` + testCall + `"}`)
	if err := ParseCallArgs(in, &args); err != nil {
		t.Fatal(err)
	}
	first := &args.Data[0]
	if err := ParseCallArgs(in, &args); err != nil {
		t.Fatal(err)
	}
	if &args.Data[0] != first {
		t.Fatal("the second decode did not reuse Data's backing array")
	}
}
