package httpapi

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// ParseAddress accepts a 0x-prefixed 20-byte hex address; a mixed-case one
// must carry a valid EIP-55 checksum (a typo in it is then caught).
func ParseAddress(s string) (common.Address, error) {
	if s == "" {
		return common.Address{}, errors.New("missing (want 0x followed by 40 hex digits)")
	}
	if len(s) != 42 || (s[:2] != "0x" && s[:2] != "0X") || !common.IsHexAddress(s) {
		return common.Address{}, fmt.Errorf("%q is not an address (want 0x followed by 40 hex digits)", s)
	}
	addr := common.HexToAddress(s)
	body := s[2:]
	if hasUpper(body) && hasLower(body) && addr.Hex()[2:] != body {
		return common.Address{}, fmt.Errorf("%q has a wrong EIP-55 checksum (did you mean %s?)", s, addr.Hex())
	}
	return addr, nil
}

func hasUpper[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'F' {
			return true
		}
	}
	return false
}

func hasLower[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'f' {
			return true
		}
	}
	return false
}

// LowerHexAddress decodes a 0x-prefixed address written in one case, the
// common form, without allocating; anything else is ParseAddress's.
func LowerHexAddress(raw []byte) (addr common.Address, ok bool) {
	if len(raw) != 42 || raw[0] != '0' || raw[1] != 'x' || (hasUpper(raw[2:]) && hasLower(raw[2:])) {
		return addr, false
	}
	_, err := hex.Decode(addr[:], raw[2:])
	return addr, err == nil
}
