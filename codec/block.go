package codec

import (
	"errors"
	"math"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// BlockTag says which block a BlockParam names.
type BlockTag uint8

const (
	TagNumber    BlockTag = iota // BlockParam.Number
	TagLatest                    // "latest"
	TagPending                   // "pending"
	TagSafe                      // "safe"
	TagFinalized                 // "finalized"
	TagEarliest                  // "earliest" (block 0)
	TagHash                      // BlockParam.Hash
)

var tagNames = [...]string{
	TagNumber:    "number",
	TagLatest:    "latest",
	TagPending:   "pending",
	TagSafe:      "safe",
	TagFinalized: "finalized",
	TagEarliest:  "earliest",
	TagHash:      "hash",
}

// String returns the tag's JSON spelling, or "number" or "hash", for logs.
func (t BlockTag) String() string {
	if int(t) < len(tagNames) {
		return tagNames[t]
	}
	return "BlockTag(" + strconv.Itoa(int(t)) + ")"
}

// BlockParam is a decoded block parameter: a tag, a number or a hash.
type BlockParam struct {
	Tag              BlockTag
	Number           uint64      // with TagNumber; at most math.MaxInt64
	Hash             common.Hash // with TagHash
	RequireCanonical bool        // EIP-1898 "requireCanonical"
}

// geth's errors for block parameters, word for word.
var (
	errBothBlockKeys     = errors.New("cannot specify both BlockHash and BlockNumber, choose one or the other")
	errNoBlockKey        = errors.New("must specify either BlockHash or BlockNumber")
	errBlockNumberTooBig = errors.New("block number larger than int64")
	errBlockParamTooBig  = errors.New("blocknumber too high")
	// geth decodes an EIP-1898 object into a struct and, when that fails for
	// any reason, retries the input as a string: what the client reads is
	// the retry's error.
	errBlockObject = jsonKindError("object", "string")
)

// ParseBlockParam parses a block parameter as geth's rpc.BlockNumberOrHash
// does (eth_getBalance, eth_call, eth_getCode, ...):
//
//   - a tag string: "latest", "pending", "safe", "finalized", "earliest";
//   - a quantity string: a block number, at most MaxInt64 ("blocknumber too
//     high", geth's wording for this path);
//   - a 66-character string: a block hash;
//   - an EIP-1898 object with "blockNumber" (a tag or quantity) or
//     "blockHash", not both, and optionally "requireCanonical".
//
// The string forms are unescaped first, as geth does. Any fault inside an
// object reads, as in geth, "json: cannot unmarshal object into Go value of
// type string"; null reads "must specify either BlockHash or BlockNumber".
func ParseBlockParam(raw []byte) (BlockParam, error) {
	raw = trimSpace(raw)
	if len(raw) == 0 {
		return BlockParam{}, ErrUnexpectedEnd
	}
	switch raw[0] {
	case '{':
		return parseBlockObject(raw)
	case '"':
		return parseBlockString(raw)
	case 'n':
		if string(raw) == "null" {
			return BlockParam{}, errNoBlockKey
		}
	}
	if !Valid(raw) {
		return BlockParam{}, ErrInvalidJSON
	}
	return BlockParam{}, jsonKindError(kindName(raw[0]), "string")
}

// parseBlockString is the string branch of BlockNumberOrHash.UnmarshalJSON.
func parseBlockString(raw []byte) (BlockParam, error) {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return BlockParam{}, ErrInvalidJSON
	}
	var buf [80]byte
	s, ok := appendUnquoted(buf[:0], raw[1:len(raw)-1])
	if !ok {
		return BlockParam{}, ErrInvalidJSON
	}
	if tag, ok := blockTag(s); ok {
		return BlockParam{Tag: tag}, nil
	}
	if len(s) == 66 {
		var bp BlockParam
		if !has0xPrefix(s) {
			return bp, hexutil.ErrMissingPrefix
		}
		if !decodeHex(bp.Hash[:], s[2:]) {
			return BlockParam{}, hexutil.ErrSyntax
		}
		bp.Tag = TagHash
		return bp, nil
	}
	n, err := decodeUint64(s)
	if err != nil {
		return BlockParam{}, err
	}
	if n > math.MaxInt64 {
		return BlockParam{}, errBlockParamTooBig
	}
	return BlockParam{Tag: TagNumber, Number: n}, nil
}

// parseBlockObject is the EIP-1898 branch of BlockNumberOrHash.UnmarshalJSON,
// which decodes with encoding/json: member names fold case, null members are
// absent (but null does not reset requireCanonical), later duplicates win.
func parseBlockObject(raw []byte) (BlockParam, error) {
	it, err := Object(raw)
	if err != nil {
		return BlockParam{}, err
	}
	var (
		num, hash       BlockParam
		hasNum, hasHash bool
		canonical, bad  bool
	)
	for it.Next() {
		k, v := it.Key(), it.Value()
		null := string(v) == "null"
		switch {
		case foldKey(k, "blockNumber"):
			if hasNum = !null; hasNum {
				num, err = ParseBlockNumber(v)
				bad = bad || err != nil
			}
		case foldKey(k, "blockHash"):
			if hasHash = !null; hasHash {
				hash.Hash, err = ParseHash(v)
				bad = bad || err != nil
			}
		case foldKey(k, "requireCanonical"):
			switch string(v) {
			case "true":
				canonical = true
			case "false":
				canonical = false
			case "null":
			default:
				bad = true
			}
		}
	}
	if err := it.Err(); err != nil {
		return BlockParam{}, err
	}
	switch {
	case bad:
		return BlockParam{}, errBlockObject
	case hasNum && hasHash:
		return BlockParam{}, errBothBlockKeys
	case hasHash:
		hash.Tag, hash.RequireCanonical = TagHash, canonical
		return hash, nil
	case hasNum:
		num.RequireCanonical = canonical
		return num, nil
	}
	return BlockParam{}, errNoBlockKey
}

// ParseBlockNumber parses a block number parameter as geth's rpc.BlockNumber
// does (eth_getBlockByNumber, eth_getLogs' fromBlock, ...): a tag or a
// quantity of at most MaxInt64 ("block number larger than int64"). Unlike
// ParseBlockParam it takes neither hashes nor objects, and, like geth here,
// it strips the quotes without decoding escapes.
func ParseBlockNumber(raw []byte) (BlockParam, error) {
	s := trimSpace(raw)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	if tag, ok := blockTag(s); ok {
		return BlockParam{Tag: tag}, nil
	}
	n, err := decodeUint64(s)
	if err != nil {
		return BlockParam{}, err
	}
	if n > math.MaxInt64 {
		return BlockParam{}, errBlockNumberTooBig
	}
	return BlockParam{Tag: TagNumber, Number: n}, nil
}

func blockTag(s []byte) (BlockTag, bool) {
	switch string(s) {
	case "latest":
		return TagLatest, true
	case "pending":
		return TagPending, true
	case "safe":
		return TagSafe, true
	case "finalized":
		return TagFinalized, true
	case "earliest":
		return TagEarliest, true
	}
	return 0, false
}

// decodeUint64 is hexutil.DecodeUint64, which the block number parsers use
// instead of hexutil.Uint64's JSON rules: "" is an error, and a digit that
// is not hex is reported before an overflow that comes after it (geth
// parses with strconv.ParseUint).
func decodeUint64(s []byte) (uint64, error) {
	if len(s) == 0 {
		return 0, hexutil.ErrEmptyString
	}
	digits, err := quantityDigits(s)
	if err != nil {
		return 0, err
	}
	var v uint64
	for i, c := range digits {
		n := nibble[c]
		if n == badNibble {
			return 0, hexutil.ErrSyntax
		}
		if i == 16 { // no leading zero, so a 17th digit overflows
			return 0, hexutil.ErrUint64Range
		}
		v = v<<4 | uint64(n)
	}
	return v, nil
}
