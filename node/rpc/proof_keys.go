package rpc

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/codec"
)

// The storage keys of eth_getProof, decoded as geth decodes them.

// proofKey is a requested storage key and how the answer spells it.
type proofKey struct {
	slot common.Hash
	out  string
}

// proofKeys parses argument i, the storage keys, as geth does: at most
// MaxStorageKeys, each checked before any state is read.
func (s *Server) proofKeys(r *request, i int) ([]proofKey, error) {
	if i >= r.nargs {
		return nil, &invalidParamsError{fmt.Errorf("missing value for required argument %d", i)}
	}
	raw := r.arg(i)
	if raw == nil {
		return nil, nil // null: no keys, as geth reads it
	}
	n, err := countArray(raw)
	if err != nil {
		return nil, argError(i, err)
	}
	if limit := s.cfg.MaxStorageKeys; limit > 0 && n > limit {
		return nil, &invalidParamsError{fmt.Errorf("too many storage keys requested (max %d, got %d): --rpc.maxstoragekeys raises the cap", limit, n)}
	}
	keys := make([]proofKey, 0, n)
	it, _ := codec.Array(raw)
	for it.Next() {
		if it.Value()[0] != '"' {
			return nil, argError(i, errors.New("json: cannot unmarshal "+kindOf(it.Value())+" into Go value of type string"))
		}
		key, err := parseProofKey(it.Value())
		if err != nil {
			return nil, &invalidParamsError{err}
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// countArray counts the elements of a JSON array, checking its syntax.
func countArray(raw []byte) (int, error) {
	it, err := codec.Array(raw)
	if err != nil {
		return 0, errors.New("json: cannot unmarshal " + kindOf(raw) + " into Go value of type []string")
	}
	n := 0
	for it.Next() {
		n++
	}
	return n, it.Err()
}

// parseProofKey decodes a storage key leniently, as geth does (0x
// optional, odd length, at most 32 bytes), and spells it in the answer as
// geth does: a 32-byte key as given, a shorter one as a quantity.
func parseProofKey(raw []byte) (proofKey, error) {
	s := string(raw[1 : len(raw)-1])
	digits := s
	if strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
		digits = digits[2:]
	}
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	if len(digits) > 2*common.HashLength {
		return proofKey{}, fmt.Errorf("storage key too long (want at most 32 bytes): %q", s)
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return proofKey{}, fmt.Errorf("invalid hex in storage key: %q", s)
	}
	key := proofKey{slot: common.BytesToHash(b)}
	if len(b) == common.HashLength {
		key.out = hexutil.Encode(b)
	} else {
		key.out = hexutil.EncodeBig(key.slot.Big())
	}
	return key, nil
}

// kindOf names a JSON value's kind as encoding/json's errors do.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	default:
		return "number"
	}
}
