package web

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/explorer/index"
)

// maxQuery bounds what a visitor may type: a hash is 66 characters, a
// token symbol a few.
const maxQuery = 200

// parseNumber reads a block number: decimal, or 0x and at most 16 hex
// digits (as JSON-RPC writes it: 0x1a is 26); longer hex is a hash or an
// address.
func parseNumber(s string) (uint64, bool) {
	if len(s) > 2 && len(s) <= 18 && (s[:2] == "0x" || s[:2] == "0X") {
		n, err := strconv.ParseUint(s[2:], 16, 64)
		return n, err == nil
	}
	if s == "" || len(s) > 20 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// parseHex reads 0x followed by exactly n bytes of hex.
func parseHex(s string, n int) ([]byte, bool) {
	if len(s) != 2+2*n || (s[:2] != "0x" && s[:2] != "0X") {
		return nil, false
	}
	b, err := hex.DecodeString(s[2:])
	return b, err == nil
}

// parseHash reads a 32-byte hash (block or transaction).
func parseHash(s string) (common.Hash, bool) {
	b, ok := parseHex(s, common.HashLength)
	return common.BytesToHash(b), ok
}

// parseAddress reads an address in any letter case; a mixed-case one is
// not held to its checksum, which only guards typing.
func parseAddress(s string) (common.Address, bool) {
	b, ok := parseHex(s, common.AddressLength)
	return common.BytesToAddress(b), ok
}

var errCursor = errors.New("before must be <block>-<transaction index>-<log index>, as the page's own links write it")

// parseCursor reads a history position: <block>-<txindex>-<log>.
func parseCursor(s string) (index.Cursor, error) {
	if s == "" {
		return index.Cursor{}, nil
	}
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return index.Cursor{}, errCursor
	}
	block, err1 := strconv.ParseUint(parts[0], 10, 64)
	tx, err2 := strconv.ParseUint(parts[1], 10, 32)
	log, err3 := strconv.ParseUint(parts[2], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return index.Cursor{}, errCursor
	}
	return index.Cursor{Block: block, Index: uint32(tx), Log: uint32(log)}, nil
}

// cursorString writes a cursor for a link; empty for the zero cursor (no
// older page).
func cursorString(c index.Cursor) string {
	if c.IsZero() {
		return ""
	}
	return strconv.FormatUint(c.Block, 10) + "-" + strconv.FormatUint(uint64(c.Index), 10) + "-" + strconv.FormatUint(uint64(c.Log), 10)
}
