package codec

import (
	"bytes"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// CallArgs is a decoded call object, geth's ethapi.TransactionArgs as
// eth_call, eth_estimateGas and eth_createAccessList take it. Each HasX
// reports whether X was given (and not null); an absent field is zero.
type CallArgs struct {
	From, To       common.Address
	HasFrom, HasTo bool

	Gas    uint64
	HasGas bool

	GasPrice, MaxFeePerGas, MaxPriorityFeePerGas, MaxFeePerBlobGas, Value                uint256.Int
	HasGasPrice, HasMaxFeePerGas, HasMaxPriorityFeePerGas, HasMaxFeePerBlobGas, HasValue bool

	Nonce    uint64
	HasNonce bool

	// Data is the decoded "input", or "data" when "input" is absent. It is
	// decoded into the backing array Data had before the call, so a pooled
	// CallArgs decodes without allocating once its buffer is large enough.
	// When HasData is false, Data is empty but may be non-nil.
	Data    []byte
	HasData bool

	ChainID    uint256.Int
	HasChainID bool

	// The list fields are rare and structured: they are kept as raw JSON
	// arrays (aliasing the input) for the caller to decode on its cold path.
	// nil when absent or null.
	AccessList        []byte // "accessList"
	AuthorizationList []byte // "authorizationList"
	BlobHashes        []byte // "blobVersionedHashes"
}

// FieldError reports a call object field whose value is invalid:
// `invalid value for "gas": hex string without 0x prefix`.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return `invalid value for "` + e.Field + `": ` + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

var errDataInput = errors.New(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`)

// callField names a member of the call object.
type callField uint8

const (
	fieldNone callField = iota
	fieldFrom
	fieldTo
	fieldGas
	fieldGasPrice
	fieldMaxFeePerGas
	fieldMaxPriorityFeePerGas
	fieldMaxFeePerBlobGas
	fieldValue
	fieldNonce
	fieldData
	fieldInput
	fieldChainID
	fieldAccessList
	fieldAuthorizationList
	fieldBlobHashes
	numCallFields
)

var callFieldNames = [numCallFields]string{
	fieldFrom:                 "from",
	fieldTo:                   "to",
	fieldGas:                  "gas",
	fieldGasPrice:             "gasPrice",
	fieldMaxFeePerGas:         "maxFeePerGas",
	fieldMaxPriorityFeePerGas: "maxPriorityFeePerGas",
	fieldMaxFeePerBlobGas:     "maxFeePerBlobGas",
	fieldValue:                "value",
	fieldNonce:                "nonce",
	fieldData:                 "data",
	fieldInput:                "input",
	fieldChainID:              "chainId",
	fieldAccessList:           "accessList",
	fieldAuthorizationList:    "authorizationList",
	fieldBlobHashes:           "blobVersionedHashes",
}

// lookupCallField maps a raw member name to its field: exact names first
// (the common case, a jump table), then encoding/json's case folding and
// escapes, which geth honours.
func lookupCallField(k []byte) callField {
	switch string(k) {
	case "from":
		return fieldFrom
	case "to":
		return fieldTo
	case "gas":
		return fieldGas
	case "gasPrice":
		return fieldGasPrice
	case "maxFeePerGas":
		return fieldMaxFeePerGas
	case "maxPriorityFeePerGas":
		return fieldMaxPriorityFeePerGas
	case "maxFeePerBlobGas":
		return fieldMaxFeePerBlobGas
	case "value":
		return fieldValue
	case "nonce":
		return fieldNonce
	case "data":
		return fieldData
	case "input":
		return fieldInput
	case "chainId":
		return fieldChainID
	case "accessList":
		return fieldAccessList
	case "authorizationList":
		return fieldAuthorizationList
	case "blobVersionedHashes":
		return fieldBlobHashes
	}
	slow := needsUnquote(k)
	for f := fieldFrom; f < numCallFields; f++ {
		name := callFieldNames[f]
		if len(k) == len(name) && equalFoldASCII(k, name) || slow && foldKey(k, name) {
			return f
		}
	}
	return fieldNone
}

// ParseCallArgs decodes the call object raw into args as geth decodes
// TransactionArgs: member names fold case, unknown members are ignored,
// null is absent, later duplicates win, and the first invalid value is
// reported as a *FieldError. Beyond the decoding, it rejects "input" and
// "data" that are both set and differ, with geth's message. null decodes
// as an empty call, as in geth.
//
// args is reset, except that Data's backing array is reused. The list
// fields are only checked to be arrays; the caller decodes them. geth's blob
// sidecar members ("blobs", "commitments", "proofs") are ignored.
func ParseCallArgs(raw []byte, args *CallArgs) error {
	buf := args.Data[:0]
	*args = CallArgs{Data: buf}
	raw = trimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	it, err := Object(raw)
	if err != nil {
		if !Valid(raw) {
			return ErrInvalidJSON
		}
		return jsonKindError(kindName(raw[0]), "ethapi.TransactionArgs")
	}
	var (
		inStart, inEnd, dataStart, dataEnd int
		hasInput, hasData                  bool
	)
	for it.Next() {
		f := lookupCallField(it.Key())
		if f == fieldNone {
			continue
		}
		v := it.Value()
		if string(v) == "null" {
			switch f {
			case fieldInput:
				hasInput = false
			case fieldData:
				hasData = false
			default:
				args.clear(f)
			}
			continue
		}
		switch f {
		case fieldFrom:
			args.From, err = ParseAddress(v)
			args.HasFrom = true
		case fieldTo:
			args.To, err = ParseAddress(v)
			args.HasTo = true
		case fieldGas:
			args.Gas, err = ParseUint64(v)
			args.HasGas = true
		case fieldNonce:
			args.Nonce, err = ParseUint64(v)
			args.HasNonce = true
		case fieldGasPrice:
			err = ParseUint256(v, &args.GasPrice)
			args.HasGasPrice = true
		case fieldMaxFeePerGas:
			err = ParseUint256(v, &args.MaxFeePerGas)
			args.HasMaxFeePerGas = true
		case fieldMaxPriorityFeePerGas:
			err = ParseUint256(v, &args.MaxPriorityFeePerGas)
			args.HasMaxPriorityFeePerGas = true
		case fieldMaxFeePerBlobGas:
			err = ParseUint256(v, &args.MaxFeePerBlobGas)
			args.HasMaxFeePerBlobGas = true
		case fieldValue:
			err = ParseUint256(v, &args.Value)
			args.HasValue = true
		case fieldChainID:
			err = ParseUint256(v, &args.ChainID)
			args.HasChainID = true
		case fieldInput:
			inStart = len(buf)
			buf, err = AppendData(buf, v)
			inEnd, hasInput = len(buf), true
		case fieldData:
			dataStart = len(buf)
			buf, err = AppendData(buf, v)
			dataEnd, hasData = len(buf), true
		case fieldAccessList:
			args.AccessList, err = rawArray(v, "types.AccessList")
		case fieldAuthorizationList:
			args.AuthorizationList, err = rawArray(v, "[]types.SetCodeAuthorization")
		case fieldBlobHashes:
			args.BlobHashes, err = rawArray(v, "[]common.Hash")
		}
		if err != nil {
			*args = CallArgs{Data: buf[:0]}
			return &FieldError{Field: callFieldNames[f], Err: err}
		}
	}
	if err := it.Err(); err != nil {
		*args = CallArgs{Data: buf[:0]}
		return err
	}
	switch {
	case hasInput && hasData && !bytes.Equal(buf[inStart:inEnd], buf[dataStart:dataEnd]):
		*args = CallArgs{Data: buf[:0]}
		return errDataInput
	case hasInput:
		args.Data = buf[:copy(buf, buf[inStart:inEnd])]
	case hasData:
		args.Data = buf[:copy(buf, buf[dataStart:dataEnd])]
	default:
		args.Data = buf[:0]
	}
	args.HasData = hasInput || hasData
	return nil
}

// clear forgets field f, for a null value.
func (args *CallArgs) clear(f callField) {
	switch f {
	case fieldFrom:
		args.From, args.HasFrom = common.Address{}, false
	case fieldTo:
		args.To, args.HasTo = common.Address{}, false
	case fieldGas:
		args.Gas, args.HasGas = 0, false
	case fieldNonce:
		args.Nonce, args.HasNonce = 0, false
	case fieldGasPrice:
		args.GasPrice, args.HasGasPrice = uint256.Int{}, false
	case fieldMaxFeePerGas:
		args.MaxFeePerGas, args.HasMaxFeePerGas = uint256.Int{}, false
	case fieldMaxPriorityFeePerGas:
		args.MaxPriorityFeePerGas, args.HasMaxPriorityFeePerGas = uint256.Int{}, false
	case fieldMaxFeePerBlobGas:
		args.MaxFeePerBlobGas, args.HasMaxFeePerBlobGas = uint256.Int{}, false
	case fieldValue:
		args.Value, args.HasValue = uint256.Int{}, false
	case fieldChainID:
		args.ChainID, args.HasChainID = uint256.Int{}, false
	case fieldAccessList:
		args.AccessList = nil
	case fieldAuthorizationList:
		args.AuthorizationList = nil
	case fieldBlobHashes:
		args.BlobHashes = nil
	}
}

// rawArray keeps a list field's raw JSON after checking that it is an
// array, as geth's decoding insists; the caller decodes the elements.
func rawArray(v []byte, typ string) ([]byte, error) {
	if v[0] != '[' {
		return nil, jsonKindError(kindName(v[0]), typ)
	}
	return v, nil
}
