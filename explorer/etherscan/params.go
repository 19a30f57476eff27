package etherscan

import (
	"cmp"
	"math"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/explorer/index"
)

// parseAddress parses "0x" and 40 hex digits, in any case: Etherscan does
// not check EIP-55 checksums.
func parseAddress(raw []byte) (common.Address, bool) {
	var a common.Address
	if len(raw) != 2+2*len(a) || raw[0] != '0' || (raw[1] != 'x' && raw[1] != 'X') {
		return a, false
	}
	for i := range a {
		hi, ok1 := unhex(raw[2+2*i])
		lo, ok2 := unhex(raw[3+2*i])
		if !ok1 || !ok2 {
			return common.Address{}, false
		}
		a[i] = hi<<4 | lo
	}
	return a, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseUint parses a decimal number of at most 64 bits.
func parseUint(raw []byte) (uint64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range raw {
		if c < '0' || c > '9' || v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// parseQuery reads startblock, endblock, page, offset and sort; msg is
// the error to answer, if any.
//
// As Etherscan: startblock defaults to 0 and endblock to the head ("latest"
// too); page to 1, zero being the default as well; page × offset at most
// 10,000; sort ascending unless "desc". Unlike Etherscan, an offset
// defaults to cfg's default page (1,000 rows, not 10,000) and may not pass
// cfg.MaxRows.
func parseQuery(args *fasthttp.Args, cfg Config) (q index.Query, msg string) {
	var ok bool
	if q.FromBlock, ok = optionalUint(args.Peek("startblock"), 0); !ok {
		return q, "Error! Invalid startblock: a block number"
	}
	end := args.Peek("endblock")
	if string(end) == "latest" {
		end = nil
	}
	if q.ToBlock, ok = optionalUint(end, math.MaxUint64); !ok {
		return q, "Error! Invalid endblock: a block number or latest"
	}
	page, ok := optionalUint(args.Peek("page"), 1)
	if !ok {
		return q, "Error! Invalid page: a number"
	}
	offset, ok := optionalUint(args.Peek("offset"), 0)
	if !ok {
		return q, "Error! Invalid offset: a number"
	}
	page, offset = max(page, 1), cmp.Or(offset, cfg.defaultRows())
	if page > index.MaxWindow || offset > index.MaxWindow || page*offset > index.MaxWindow {
		return q, msgWindow
	}
	if offset > uint64(cfg.MaxRows) {
		return q, cfg.tooManyRows(offset)
	}
	switch string(args.Peek("sort")) {
	case "", "asc":
		q.Ascending = true
	case "desc":
	default:
		return q, msgSort
	}
	q.Skip, q.Limit = int((page-1)*offset), int(offset)
	return q, ""
}

// optionalUint parses raw, or is def when raw is empty.
func optionalUint(raw []byte, def uint64) (uint64, bool) {
	if len(raw) == 0 {
		return def, true
	}
	return parseUint(raw)
}

func uitoa(v uint64) string { return strconv.FormatUint(v, 10) }
