package rpc

import (
	"time"

	"github.com/stocknode/stocknode/codec"
	"github.com/stocknode/stocknode/peer"
	"github.com/stocknode/stocknode/ratelimit"
)

// computeUnits weighs each method by what it costs the node, on the scale
// hosted providers meter with (Alchemy's compute units: 10 for a trivial
// read, 26 for eth_call, 75 for eth_getLogs); a method not listed costs
// defaultUnits.
var computeUnits = map[string]float64{
	"web3_clientVersion":        0,
	"net_version":               0,
	"net_listening":             0,
	"net_peerCount":             0,
	"eth_chainId":               0,
	"eth_syncing":               0,
	"eth_accounts":              0,
	"eth_blockNumber":           10,
	"eth_gasPrice":              19,
	"eth_maxPriorityFeePerGas":  10,
	"eth_feeHistory":            10,
	"eth_getBalance":            19,
	"eth_getTransactionCount":   26,
	"eth_getCode":               26,
	"eth_getStorageAt":          17,
	"eth_call":                  26,
	"eth_estimateGas":           87,
	"eth_createAccessList":      87,
	"eth_sendRawTransaction":    250,
	"eth_getBlockByNumber":      16,
	"eth_getBlockByHash":        16,
	"eth_getTransactionByHash":  17,
	"eth_getTransactionReceipt": 15,
	"eth_getBlockReceipts":      500,
	"eth_getLogs":               75,
	"eth_getFilterLogs":         75,
	"eth_getFilterChanges":      20,
	"eth_newFilter":             20,
	"eth_newBlockFilter":        20,
	"eth_uninstallFilter":       10,
	"eth_subscribe":             10,
	"eth_unsubscribe":           10,
	// Issue 16's methods: Alchemy's units where it meters the method; for
	// the others, the listed method whose work is closest.
	"debug_traceTransaction":   309,
	"debug_traceCall":          309,
	"debug_traceBlockByNumber": 497,
	"debug_traceBlockByHash":   497,
	"eth_getProof":             21,
	"eth_getStorageValues":     75,  // up to 1,024 slots, as eth_getLogs
	"eth_simulateV1":           500, // blocks of calls, as eth_getBlockReceipts
	"txpool_status":            10,
	"txpool_content":           500, // the whole pool, as eth_getBlockReceipts
	"txpool_inspect":           500,
	"txpool_contentFrom":       75,
	"debug_getRawHeader":       16,
	"debug_getRawBlock":        16,
	"debug_getRawTransaction":  17,
	"debug_getRawReceipts":     500, // a block's receipts, as eth_getBlockReceipts
	"eth_blobBaseFee":          10,
	"eth_config":               10,
	"base_transactionStatus":   17,

	// The send, and the receipt polls it spares the client: the wait
	// holds a waiter of the client's share (--rpc.txsync.per-client) and
	// its connection, not a CPU.
	"eth_sendRawTransactionSync": 300,
}

const defaultUnits = 10

// admitBatch charges a batch's requests to p's rate limits when metered;
// it returns the denial when p must wait.
func (s *Server) admitBatch(p *peer.Peer, body []byte, metered bool, now time.Time) *ratelimit.Denial {
	if !metered {
		return nil
	}
	n, units := batchCost(body)
	return s.limiter.AllowAt(p.Key(), n, units, now)
}

// admitOne charges one request, whose envelope was scanned already (scanErr
// its failure), to p's rate limits at now.
func (s *Server) admitOne(p *peer.Peer, method []byte, scanErr *codec.Error, now time.Time) *ratelimit.Denial {
	units := float64(defaultUnits)
	if scanErr == nil {
		units = unitsOf(method)
	}
	return s.limiter.AllowAt(p.Key(), 1, units, now)
}

// batchCost counts a batch's requests and their compute units.
func batchCost(body []byte) (n, units float64) {
	it, err := codec.Array(body)
	if err != nil {
		return 1, defaultUnits
	}
	for it.Next() {
		n++
		units += methodUnits(it.Value())
	}
	return max(n, 1), units
}

func methodUnits(elem []byte) float64 {
	var req codec.Request
	if codec.ScanRequest(elem, &req) != nil {
		return defaultUnits
	}
	return unitsOf(req.Method)
}

func unitsOf(method []byte) float64 {
	if u, ok := computeUnits[string(method)]; ok {
		return u
	}
	return defaultUnits
}

// appendDenied answers every request of body with the rate limit's error.
func appendDenied(dst, body []byte, d *ratelimit.Denial) []byte {
	cerr := &codec.Error{Code: codec.CodeLimitExceeded, Message: d.Error()}
	if !codec.IsBatch(body) {
		var req codec.Request
		codec.ScanRequest(body, &req)
		return codec.AppendError(dst, req.ID, cerr)
	}
	it, err := codec.Array(body)
	if err != nil {
		return codec.AppendError(dst, nil, cerr)
	}
	start := len(dst)
	dst = append(dst, '[')
	for it.Next() {
		before := len(dst)
		if before > start+1 {
			dst = append(dst, ',')
		}
		if next := appendElementError(dst, it.Value(), cerr); len(next) == len(dst) {
			dst = dst[:before]
		} else {
			dst = next
		}
	}
	if len(dst) == start+1 {
		return codec.AppendError(dst[:start], nil, cerr)
	}
	return append(dst, ']')
}

// retryAfter is d's wait, for the transport's Retry-After.
func retryAfter(d *ratelimit.Denial) time.Duration { return max(d.RetryAfter, time.Millisecond) }
