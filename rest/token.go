package rest

import (
	"math/big"

	"github.com/stocknode/stocknode/node/stocks"
)

// tokenJSON is one entry of GET /v1/tokenized-stocks, in Coinbase's field
// names. nav_price and nav_price_updated_at are left out: this chain has no
// price oracle. Empty values are written, as grpc-gateway's default
// marshaler (EmitUnpopulated) does.
type tokenJSON struct {
	ContractAddress string  `json:"contract_address"`
	Symbol          string  `json:"symbol"`
	Name            string  `json:"name"`
	Decimals        int     `json:"decimals"`
	IconURL         string  `json:"icon_url"`
	TotalSupply     float64 `json:"total_supply"`
	ISIN            string  `json:"isin"`
	Multiplier      float64 `json:"multiplier"`
	PausedFeatures  []int   `json:"paused_features"`
}

// wad is the multiplier's unit: 1e18 is a multiplier of 1.
var wad = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

func newTokenJSON(t *stocks.Token) tokenJSON {
	paused := make([]int, len(t.PausedFeatures))
	for i, f := range t.PausedFeatures {
		paused[i] = int(f)
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Decimals)), nil)
	return tokenJSON{
		ContractAddress: t.Address.Hex(),
		Symbol:          t.Symbol,
		Name:            t.Name,
		Decimals:        int(t.Decimals),
		IconURL:         t.IconURL,
		TotalSupply:     ratio(t.TotalSupply, unit),
		ISIN:            t.ISIN,
		Multiplier:      ratio(t.Multiplier, wad),
		PausedFeatures:  paused,
	}
}

// ratio is a/b as the nearest float64.
func ratio(a, b *big.Int) float64 {
	if a == nil {
		return 0
	}
	f, _ := new(big.Rat).SetFrac(a, b).Float64()
	return f
}
