package chain

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/ethdb"
)

// rulesKey is the database key of the chain's stocknode rules.
var rulesKey = []byte("stocknode-chain-rules")

// Rules are consensus rules stocknode adds to a geth chain config. They
// decide block validity, so they are stored with the genesis and a database
// keeps the rules it was created with whatever flags a later start gets.
type Rules struct {
	// MinBaseFee is the base fee floor; nil means plain EIP-1559 (the rule of
	// chains made from a geth genesis file, so that they stay importable).
	MinBaseFee *big.Int
}

type storedRules struct {
	MinBaseFee string `json:"minBaseFee,omitempty"`
}

func writeRules(db ethdb.KeyValueWriter, r Rules) error {
	var s storedRules
	if r.MinBaseFee != nil {
		s.MinBaseFee = r.MinBaseFee.String()
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := db.Put(rulesKey, data); err != nil {
		return fmt.Errorf("store chain rules: %w", err)
	}
	return nil
}

func readRules(db ethdb.KeyValueReader) (Rules, error) {
	data, err := db.Get(rulesKey)
	if err != nil {
		// A database made by geth itself: plain geth rules.
		return Rules{}, nil
	}
	var s storedRules
	if err := json.Unmarshal(data, &s); err != nil {
		return Rules{}, fmt.Errorf("decode chain rules: %w", err)
	}
	fee, err := bigOrNil(s.MinBaseFee)
	if err != nil {
		return Rules{}, fmt.Errorf("stored minBaseFee: %w", err)
	}
	return Rules{MinBaseFee: fee}, nil
}
