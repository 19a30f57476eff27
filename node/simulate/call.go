package simulate

// Adapted from go-ethereum v1.17.10 internal/ethapi/transaction_args.go
// (CallDefaults, ToMessage, ToTransaction) and simulate.go (sanitizeCall)
// (Copyright The go-ethereum Authors, GNU LGPL v3 or later), on the
// call objects codec.ParseCallArgs decodes.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/codec"
)

// call is one call object with geth's eth_simulateV1 defaults filled in.
type call struct {
	from, to         common.Address
	hasTo            bool
	nonce, gas       uint64
	hasNonce, hasGas bool
	value            uint256.Int
	gasPrice         *uint256.Int // set: a legacy (or access-list) call
	feeCap, tipCap   uint256.Int
	blobFeeCap       *uint256.Int
	data             []byte
	accessList       types.AccessList
	hasAccessList    bool
	authorizations   []types.SetCodeAuthorization
	hasAuthorization bool
	blobHashes       []common.Hash
	hasBlobHashes    bool
	chainID          *big.Int
}

// newCall checks args and fills in the defaults that do not depend on the
// state (geth's CallDefaults): the chain ID, zero fees, the value.
func newCall(args *codec.CallArgs, baseFee, chainID *big.Int) (*call, error) {
	if args.HasGasPrice && (args.HasMaxFeePerGas || args.HasMaxPriorityFeePerGas) {
		return nil, errors.New("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	c := &call{from: args.From, to: args.To, hasTo: args.HasTo, nonce: args.Nonce, gas: args.Gas, hasNonce: args.HasNonce, hasGas: args.HasGas, value: args.Value, data: args.Data, chainID: chainID}
	if err := c.decodeLists(args); err != nil {
		return nil, err
	}
	if !c.hasTo && c.hasBlobHashes {
		return nil, core.ErrBlobTxCreate
	}
	if !c.hasTo && c.hasAuthorization {
		return nil, core.ErrSetCodeTxCreate
	}
	if args.HasChainID && args.ChainID.ToBig().Cmp(chainID) != 0 {
		return nil, fmt.Errorf("chainId does not match node's (have=%v, want=%v)", args.ChainID.ToBig(), chainID)
	}
	if baseFee == nil && (args.HasMaxFeePerGas || args.HasMaxPriorityFeePerGas) {
		return nil, errors.New("maxFeePerGas and maxPriorityFeePerGas are not valid before London is active")
	}
	if args.HasGasPrice || baseFee == nil {
		price := args.GasPrice
		c.gasPrice = &price
	}
	c.feeCap, c.tipCap = args.MaxFeePerGas, args.MaxPriorityFeePerGas
	if args.HasMaxFeePerBlobGas || c.hasBlobHashes {
		fee := args.MaxFeePerBlobGas
		c.blobFeeCap = &fee
	}
	return c, nil
}

func (c *call) decodeLists(args *codec.CallArgs) error {
	if args.AccessList != nil {
		if err := json.Unmarshal(args.AccessList, &c.accessList); err != nil {
			return fmt.Errorf("accessList: %w", err)
		}
		c.hasAccessList = true
	}
	if args.AuthorizationList != nil {
		if err := json.Unmarshal(args.AuthorizationList, &c.authorizations); err != nil {
			return fmt.Errorf("authorizationList: %w", err)
		}
		c.hasAuthorization = true
	}
	if args.BlobHashes != nil {
		if err := json.Unmarshal(args.BlobHashes, &c.blobHashes); err != nil {
			return fmt.Errorf("blobVersionedHashes: %w", err)
		}
		c.hasBlobHashes = true
	}
	return nil
}

// message is the call as the EVM runs it (geth's ToMessage); the sender's
// code is never checked, its nonce only with validation.
func (c *call) message(baseFee *big.Int, validate bool) *core.Message {
	msg := &core.Message{
		From:                  c.from,
		Nonce:                 c.nonce,
		GasLimit:              c.gas,
		Value:                 &c.value,
		Data:                  c.data,
		AccessList:            c.accessList,
		BlobGasFeeCap:         c.blobFeeCap,
		BlobHashes:            c.blobHashes,
		SetCodeAuthorizations: c.authorizations,
	}
	if c.hasTo {
		to := c.to
		msg.To = &to
	}
	switch {
	case c.gasPrice != nil:
		msg.GasPrice, msg.GasFeeCap, msg.GasTipCap = c.gasPrice, c.gasPrice, c.gasPrice
	default:
		msg.GasFeeCap, msg.GasTipCap, msg.GasPrice = &c.feeCap, &c.tipCap, new(uint256.Int)
		if !c.feeCap.IsZero() || !c.tipCap.IsZero() {
			msg.GasPrice.Add(&c.tipCap, uint256.MustFromBig(baseFee))
			if msg.GasPrice.Cmp(&c.feeCap) > 0 {
				msg.GasPrice.Set(&c.feeCap)
			}
		}
	}
	if !validate {
		msg.SkipNonceCheck()
		msg.SkipExecutionGasCapCheck()
	}
	return msg.SkipEOACheck().SkipGasLimitCapCheck()
}

// transaction is the call as the simulated block holds it: unsigned, of the
// type geth's ToTransaction(DynamicFeeTxType) picks.
func (c *call) transaction() *types.Transaction {
	var to *common.Address
	if c.hasTo {
		addr := c.to
		to = &addr
	}
	al := c.accessList
	if al == nil {
		al = types.AccessList{}
	}
	value := c.value.ToBig()
	switch {
	case c.gasPrice != nil && c.hasAccessList:
		return types.NewTx(&types.AccessListTx{ChainID: c.chainID, Nonce: c.nonce, Gas: c.gas, GasPrice: c.gasPrice.ToBig(), To: to, Value: value, Data: c.data, AccessList: al})
	case c.gasPrice != nil:
		return types.NewTx(&types.LegacyTx{Nonce: c.nonce, Gas: c.gas, GasPrice: c.gasPrice.ToBig(), To: to, Value: value, Data: c.data})
	case c.hasAuthorization:
		auths := c.authorizations
		if auths == nil {
			auths = []types.SetCodeAuthorization{}
		}
		return types.NewTx(&types.SetCodeTx{ChainID: uint256.MustFromBig(c.chainID), Nonce: c.nonce, Gas: c.gas, GasFeeCap: &c.feeCap, GasTipCap: &c.tipCap, To: c.to, Value: &c.value, Data: c.data, AccessList: al, AuthList: auths})
	case c.hasBlobHashes:
		return types.NewTx(&types.BlobTx{ChainID: uint256.MustFromBig(c.chainID), Nonce: c.nonce, Gas: c.gas, GasFeeCap: &c.feeCap, GasTipCap: &c.tipCap, To: c.to, Value: &c.value, Data: c.data, AccessList: al, BlobHashes: c.blobHashes, BlobFeeCap: c.blobFeeCap})
	default:
		return types.NewTx(&types.DynamicFeeTx{ChainID: c.chainID, Nonce: c.nonce, Gas: c.gas, GasFeeCap: c.feeCap.ToBig(), GasTipCap: c.tipCap.ToBig(), To: to, Value: value, Data: c.data, AccessList: al})
	}
}
