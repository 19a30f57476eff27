// Package preview issues the preview network's example stock tokens: a few
// made-up companies, created through the B20 factory by a public development
// key in the chain's first block, so that a newcomer's first look at the
// REST API, the explorer or a wallet finds tokens with holders, an ISIN and
// a multiplier. They are examples, named as such, with ISIN-shaped test
// values under the "XX" prefix that no country holds.
package preview

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/contracts"
)

// Example is one example stock token.
type Example struct {
	Name, Symbol, ISIN string
	// Supply is minted in whole tokens (18 decimals) to each holder.
	Supply int64
	// Multiplier is the corporate-action multiplier as a WAD (1e18 = 1).
	Multiplier *big.Int
}

// Examples are the example tokens, in issuance order.
func Examples() []Example {
	return []Example{
		{Name: "Example Robotics Inc. (example)", Symbol: "XRBT", ISIN: "XX0000000R01", Supply: 1_000, Multiplier: wad(1, 1)},
		{Name: "Sample Foods Corp. (example)", Symbol: "XSFD", ISIN: "XX0000000F05", Supply: 2_500, Multiplier: wad(3, 2)},
		{Name: "Demo Energy plc (example)", Symbol: "XDEN", ISIN: "XX0000000E06", Supply: 400, Multiplier: wad(1, 1)},
	}
}

func wad(num, den int64) *big.Int {
	w := new(big.Int).Mul(big.NewInt(num), big.NewInt(params.Ether))
	return w.Quo(w, big.NewInt(den))
}

// Roles the issuer grants itself in the creating transaction, as Base's
// smoke journeys do: every role an issuer's desk uses.
var issuerRoles = []string{"MINT_ROLE", "BURN_ROLE", "PAUSE_ROLE", "UNPAUSE_ROLE", "METADATA_ROLE", "OPERATOR_ROLE"}

// Gas of one example's transactions: far above what they use (the unused
// part is never charged), far below a block.
const (
	createGas   = 5_000_000
	announceGas = 1_000_000
)

// maxFee is what the issuer offers per gas: ten times the preview network's
// floor, so that the first block takes the examples even under load.
var maxFee = big.NewInt(10 * params.GWei)

// Salt is the createB20 salt of an example, so its address can be predicted
// with the factory's getB20Address.
func Salt(e Example) common.Hash {
	return crypto.Keccak256Hash([]byte("stocknode.preview.example." + e.Symbol))
}

// Transactions returns the signed transactions that issue the examples,
// nonces 0 onwards, from issuer: per token, a createB20 whose initCalls
// grant the issuer its roles, record the ISIN and mint to holders, then an
// announcement that sets a multiplier other than one.
func Transactions(chainID *big.Int, issuer *ecdsa.PrivateKey, holders []common.Address) ([]*types.Transaction, error) {
	factory, err := contracts.Load("B20Factory")
	if err != nil {
		return nil, err
	}
	asset, err := contracts.Load("B20Asset")
	if err != nil {
		return nil, err
	}
	from := crypto.PubkeyToAddress(issuer.PublicKey)
	signer := types.LatestSignerForChainID(chainID)
	var txs []*types.Transaction
	add := func(to common.Address, gas uint64, data []byte) error {
		tx, err := types.SignNewTx(issuer, signer, &types.DynamicFeeTx{
			ChainID: chainID, Nonce: uint64(len(txs)), GasTipCap: new(big.Int), GasFeeCap: maxFee,
			Gas: gas, To: &to, Data: data,
		})
		if err != nil {
			return err
		}
		txs = append(txs, tx)
		return nil
	}
	for _, e := range Examples() {
		create, token, err := createCall(factory.ABI, asset.ABI, e, from, holders)
		if err != nil {
			return nil, fmt.Errorf("example %s: %w", e.Symbol, err)
		}
		if err := add(contracts.FactoryAddress, createGas, create); err != nil {
			return nil, err
		}
		if e.Multiplier.Cmp(wad(1, 1)) == 0 {
			continue
		}
		split, err := asset.ABI.Pack("updateMultiplier", e.Multiplier)
		if err != nil {
			return nil, err
		}
		announce, err := asset.ABI.Pack("announce", [][]byte{split}, "example-"+e.Symbol+"-split-1",
			"Example corporate action: the multiplier becomes "+ratio(e.Multiplier), "")
		if err != nil {
			return nil, err
		}
		if err := add(token, announceGas, announce); err != nil {
			return nil, err
		}
	}
	return txs, nil
}

// createCall encodes the factory call that creates e, and predicts the
// token's address.
func createCall(factory, asset abi.ABI, e Example, issuer common.Address, holders []common.Address) ([]byte, common.Address, error) {
	var inits [][]byte
	pack := func(method string, args ...any) error {
		call, err := asset.Pack(method, args...)
		inits = append(inits, call)
		return err
	}
	for _, role := range issuerRoles {
		if err := pack("grantRole", crypto.Keccak256Hash([]byte(role)), issuer); err != nil {
			return nil, common.Address{}, err
		}
	}
	if err := pack("updateExtraMetadata", "isin", e.ISIN); err != nil {
		return nil, common.Address{}, err
	}
	amount := new(big.Int).Mul(big.NewInt(e.Supply), big.NewInt(params.Ether))
	for _, h := range append([]common.Address{issuer}, holders...) {
		if err := pack("mint", h, amount); err != nil {
			return nil, common.Address{}, err
		}
	}
	data, err := factory.Pack("createB20", contracts.VariantAsset, Salt(e), contracts.AssetParams(e.Name, e.Symbol, issuer, 18), inits)
	if err != nil {
		return nil, common.Address{}, err
	}
	return data, contracts.B20Address(contracts.VariantAsset, issuer, Salt(e)), nil
}

// ratio writes a WAD as a decimal, e.g. 1.5.
func ratio(w *big.Int) string {
	f, _ := new(big.Rat).SetFrac(w, big.NewInt(params.Ether)).Float64()
	return fmt.Sprintf("%g", f)
}
