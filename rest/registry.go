package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/internal/httpapi"
)

// Chain is one entry of GET /v1/tokenized-stocks/chains: where the protocol's
// contracts live on a chain (the spec's ChainContractAddresses).
type Chain struct {
	ChainID            uint64
	Name               string
	PolicyRegistry     common.Address
	TokenSupplyManager common.Address
	TokenFactory       common.Address
}

// chainJSON is Chain on the wire: the chain ID a decimal string (a uint64 in
// protobuf's JSON mapping), addresses in EIP-55.
type chainJSON struct {
	ChainID            string `json:"chain_id"`
	Chain              string `json:"chain"`
	PolicyRegistry     string `json:"policy_registry_address"`
	TokenSupplyManager string `json:"token_supply_manager_address"`
	TokenFactory       string `json:"token_factory_address"`
}

// MarshalJSON writes c as the REST API answers it.
func (c Chain) MarshalJSON() ([]byte, error) {
	return json.Marshal(chainJSON{
		ChainID:            strconv.FormatUint(c.ChainID, 10),
		Chain:              c.Name,
		PolicyRegistry:     c.PolicyRegistry.Hex(),
		TokenSupplyManager: c.TokenSupplyManager.Hex(),
		TokenFactory:       c.TokenFactory.Hex(),
	})
}

// LoadRegistry reads --registry FILE: a JSON array of objects shaped like
// the chains endpoint's entries. Every entry must be complete and valid; the
// error says which entry and field are wrong and how.
func LoadRegistry(path string) ([]Chain, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	chains, err := ParseRegistry(raw)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", path, err)
	}
	return chains, nil
}

// ParseRegistry parses a registry file's contents (see LoadRegistry).
func ParseRegistry(raw []byte) ([]Chain, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var entries []chainJSON
	if err := dec.Decode(&entries); err != nil {
		return nil, describeJSONError(raw, err)
	}
	if dec.More() {
		return nil, errors.New("want one JSON array of chains, found more after it")
	}
	chains := make([]Chain, 0, len(entries))
	seen := map[uint64]int{}
	for i, e := range entries {
		c, err := e.chain()
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if j, dup := seen[c.ChainID]; dup {
			return nil, fmt.Errorf("entry %d: chain_id %d is already listed by entry %d", i, c.ChainID, j)
		}
		seen[c.ChainID] = i
		chains = append(chains, c)
	}
	return chains, nil
}

// chain validates one entry.
func (e chainJSON) chain() (Chain, error) {
	var c Chain
	if e.ChainID == "" {
		return c, errors.New(`chain_id is missing (a decimal string, e.g. "8453")`)
	}
	id, err := strconv.ParseUint(e.ChainID, 10, 64)
	if err != nil || id == 0 || strconv.FormatUint(id, 10) != e.ChainID {
		return c, fmt.Errorf(`chain_id %q is not a positive decimal integer without leading zeros (e.g. "8453")`, e.ChainID)
	}
	if e.Chain == "" {
		return c, fmt.Errorf("chain_id %s: chain (the chain's name) is missing", e.ChainID)
	}
	c.ChainID, c.Name = id, e.Chain
	for _, f := range []struct {
		name string
		raw  string
		dst  *common.Address
	}{
		{"policy_registry_address", e.PolicyRegistry, &c.PolicyRegistry},
		{"token_supply_manager_address", e.TokenSupplyManager, &c.TokenSupplyManager},
		{"token_factory_address", e.TokenFactory, &c.TokenFactory},
	} {
		addr, err := httpapi.ParseAddress(f.raw)
		if err != nil {
			return c, fmt.Errorf("chain_id %s: %s: %w", e.ChainID, f.name, err)
		}
		*f.dst = addr
	}
	return c, nil
}

// describeJSONError turns a decoding error into one that says where.
func describeJSONError(raw []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(raw, syntax.Offset-1) // Offset is past the culprit
		return fmt.Errorf("line %d, column %d: %v", line, col, syntax)
	case errors.As(err, &typ):
		line, col := position(raw, typ.Offset-1)
		field := typ.Field
		if field == "" {
			return fmt.Errorf("line %d, column %d: want a JSON array of chain objects, found a JSON %s", line, col, typ.Value)
		}
		return fmt.Errorf("line %d, column %d: %s must be a JSON %s, found a JSON %s", line, col, field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF):
		return errors.New("empty file: want a JSON array of chains")
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return fmt.Errorf("%s: an entry has only chain_id, chain, policy_registry_address, token_supply_manager_address and token_factory_address", strings.TrimPrefix(err.Error(), "json: "))
	}
	return err
}

// position converts a byte offset into a 1-based line and column.
func position(raw []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(raw))))
	before := raw[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
