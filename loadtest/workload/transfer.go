package workload

import (
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// SignTransfer signs a plain EIP-1559 transfer of value to to.
func SignTransfer(signer types.Signer, chainID *big.Int, key *ecdsa.PrivateKey, nonce uint64, to common.Address, value, feeCap, tip *big.Int) (*types.Transaction, error) {
	return types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: feeCap, Gas: params.TxGas, To: &to, Value: value})
}
