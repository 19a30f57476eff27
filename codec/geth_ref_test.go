package codec

// This file holds the references the parsers are tested and fuzzed
// against: go-ethereum v1.17.10's rpc.BlockNumber and rpc.BlockNumberOrHash
// JSON decoding, copied verbatim but for the type names (rpc/types.go,
// LGPL-3.0, Copyright 2015 The go-ethereum Authors), and a mirror of
// ethapi.TransactionArgs decoded by encoding/json. go-ethereum's rpc and
// ethapi packages cannot be imported here: rpc needs modules this module
// does not require, ethapi is internal.

import (
	"encoding/json"
	"errors"
	"math"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

type refBlockNumber int64

const (
	refEarliest  = refBlockNumber(-5)
	refSafe      = refBlockNumber(-4)
	refFinalized = refBlockNumber(-3)
	refLatest    = refBlockNumber(-2)
	refPending   = refBlockNumber(-1)
)

// UnmarshalJSON parses the given JSON fragment into a BlockNumber. It supports:
// - "safe", "finalized", "latest", "earliest" or "pending" as string arguments
// - the block number
// Returned errors:
// - an invalid block number error when the given argument isn't a known strings
// - an out of range error when the given block number is either too little or too large
func (bn *refBlockNumber) UnmarshalJSON(data []byte) error {
	input := strings.TrimSpace(string(data))
	if len(input) >= 2 && input[0] == '"' && input[len(input)-1] == '"' {
		input = input[1 : len(input)-1]
	}

	switch input {
	case "earliest":
		*bn = refEarliest
		return nil
	case "latest":
		*bn = refLatest
		return nil
	case "pending":
		*bn = refPending
		return nil
	case "finalized":
		*bn = refFinalized
		return nil
	case "safe":
		*bn = refSafe
		return nil
	}

	blckNum, err := hexutil.DecodeUint64(input)
	if err != nil {
		return err
	}
	if blckNum > math.MaxInt64 {
		return errors.New("block number larger than int64")
	}
	*bn = refBlockNumber(blckNum)
	return nil
}

type refBlockNumberOrHash struct {
	BlockNumber      *refBlockNumber `json:"blockNumber,omitempty"`
	BlockHash        *common.Hash    `json:"blockHash,omitempty"`
	RequireCanonical bool            `json:"requireCanonical,omitempty"`
}

func (bnh *refBlockNumberOrHash) UnmarshalJSON(data []byte) error {
	type erased refBlockNumberOrHash
	e := erased{}
	err := json.Unmarshal(data, &e)
	if err == nil {
		if e.BlockNumber != nil && e.BlockHash != nil {
			return errors.New("cannot specify both BlockHash and BlockNumber, choose one or the other")
		}
		if e.BlockNumber == nil && e.BlockHash == nil {
			return errors.New("must specify either BlockHash or BlockNumber")
		}
		bnh.BlockNumber = e.BlockNumber
		bnh.BlockHash = e.BlockHash
		bnh.RequireCanonical = e.RequireCanonical
		return nil
	}
	var input string
	err = json.Unmarshal(data, &input)
	if err != nil {
		return err
	}
	switch input {
	case "earliest":
		bn := refEarliest
		bnh.BlockNumber = &bn
		return nil
	case "latest":
		bn := refLatest
		bnh.BlockNumber = &bn
		return nil
	case "pending":
		bn := refPending
		bnh.BlockNumber = &bn
		return nil
	case "finalized":
		bn := refFinalized
		bnh.BlockNumber = &bn
		return nil
	case "safe":
		bn := refSafe
		bnh.BlockNumber = &bn
		return nil
	default:
		if len(input) == 66 {
			hash := common.Hash{}
			err := hash.UnmarshalText([]byte(input))
			if err != nil {
				return err
			}
			bnh.BlockHash = &hash
			return nil
		} else {
			blckNum, err := hexutil.DecodeUint64(input)
			if err != nil {
				return err
			}
			if blckNum > math.MaxInt64 {
				return errors.New("blocknumber too high")
			}
			bn := refBlockNumber(blckNum)
			bnh.BlockNumber = &bn
			return nil
		}
	}
}

// refBlockParam decodes data with the copied geth code and converts the
// result to a BlockParam.
func refBlockParam(data []byte) (BlockParam, error) {
	var bnh refBlockNumberOrHash
	if err := json.Unmarshal(data, &bnh); err != nil {
		return BlockParam{}, err
	}
	if bnh.BlockHash != nil {
		return BlockParam{Tag: TagHash, Hash: *bnh.BlockHash, RequireCanonical: bnh.RequireCanonical}, nil
	}
	bp := BlockParam{RequireCanonical: bnh.RequireCanonical}
	switch n := *bnh.BlockNumber; n {
	case refLatest:
		bp.Tag = TagLatest
	case refPending:
		bp.Tag = TagPending
	case refSafe:
		bp.Tag = TagSafe
	case refFinalized:
		bp.Tag = TagFinalized
	case refEarliest:
		bp.Tag = TagEarliest
	default:
		bp.Tag, bp.Number = TagNumber, uint64(n)
	}
	return bp, nil
}

// refTransactionArgs mirrors the decoded part of geth's
// ethapi.TransactionArgs (internal/ethapi/transaction_args.go), with the list
// fields kept raw as CallArgs keeps them.
type refTransactionArgs struct {
	From                 *common.Address  `json:"from"`
	To                   *common.Address  `json:"to"`
	Gas                  *hexutil.Uint64  `json:"gas"`
	GasPrice             *hexutil.Big     `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big     `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big     `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big     `json:"value"`
	Nonce                *hexutil.Uint64  `json:"nonce"`
	Data                 *hexutil.Bytes   `json:"data"`
	Input                *hexutil.Bytes   `json:"input"`
	AccessList           *json.RawMessage `json:"accessList,omitempty"`
	ChainID              *hexutil.Big     `json:"chainId,omitempty"`
	BlobFeeCap           *hexutil.Big     `json:"maxFeePerBlobGas"`
	BlobHashes           *json.RawMessage `json:"blobVersionedHashes,omitempty"`
	AuthorizationList    *json.RawMessage `json:"authorizationList"`
}

// refCallArgs decodes data as geth does, adds the checks ParseCallArgs
// makes beyond decoding (data equal to input, lists are arrays), and
// converts the result to a CallArgs.
func refCallArgs(data []byte) (CallArgs, error) {
	var ta refTransactionArgs
	if err := json.Unmarshal(data, &ta); err != nil {
		return CallArgs{}, err
	}
	if ta.Data != nil && ta.Input != nil && string(*ta.Data) != string(*ta.Input) {
		return CallArgs{}, errors.New("data and input differ")
	}
	var a CallArgs
	for _, l := range []struct {
		raw *json.RawMessage
		dst *[]byte
	}{{ta.AccessList, &a.AccessList}, {ta.BlobHashes, &a.BlobHashes}, {ta.AuthorizationList, &a.AuthorizationList}} {
		if l.raw != nil {
			if (*l.raw)[0] != '[' {
				return CallArgs{}, errors.New("list is not an array")
			}
			*l.dst = *l.raw
		}
	}
	setAddr := func(p *common.Address, dst *common.Address, has *bool) {
		if p != nil {
			*dst, *has = *p, true
		}
	}
	setU64 := func(p *hexutil.Uint64, dst *uint64, has *bool) {
		if p != nil {
			*dst, *has = uint64(*p), true
		}
	}
	setBig := func(p *hexutil.Big, dst *uint256.Int, has *bool) {
		if p != nil {
			dst.SetFromBig(p.ToInt())
			*has = true
		}
	}
	setAddr(ta.From, &a.From, &a.HasFrom)
	setAddr(ta.To, &a.To, &a.HasTo)
	setU64(ta.Gas, &a.Gas, &a.HasGas)
	setU64(ta.Nonce, &a.Nonce, &a.HasNonce)
	setBig(ta.GasPrice, &a.GasPrice, &a.HasGasPrice)
	setBig(ta.MaxFeePerGas, &a.MaxFeePerGas, &a.HasMaxFeePerGas)
	setBig(ta.MaxPriorityFeePerGas, &a.MaxPriorityFeePerGas, &a.HasMaxPriorityFeePerGas)
	setBig(ta.BlobFeeCap, &a.MaxFeePerBlobGas, &a.HasMaxFeePerBlobGas)
	setBig(ta.Value, &a.Value, &a.HasValue)
	setBig(ta.ChainID, &a.ChainID, &a.HasChainID)
	switch {
	case ta.Input != nil:
		a.Data, a.HasData = *ta.Input, true
	case ta.Data != nil:
		a.Data, a.HasData = *ta.Data, true
	}
	return a, nil
}

// refDecodeUint64 is hexutil.DecodeUint64, named for the tests.
func refDecodeUint64(s string) (uint64, error) { return hexutil.DecodeUint64(s) }
