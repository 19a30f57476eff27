// Package codec is the JSON-RPC 2.0 wire format of the node: it scans request
// envelopes, parses the Ethereum value types that appear in parameters and
// appends responses, without allocating on the hot path.
//
// The style is that of fasthttp and VictoriaMetrics rather than
// encoding/json: there is no reflection and no intermediate tree. Scanners
// validate the input in place and hand back sub-slices of it (they alias the
// input, so the input must outlive them and must not be modified), parsers
// decode straight into fixed-size values or caller-owned buffers, and
// writers are append-style functions over a reused []byte.
//
// Values are accepted and rejected exactly as go-ethereum's JSON decoding
// accepts and rejects them (hexutil, common.Address/Hash, rpc.BlockNumber and
// rpc.BlockNumberOrHash, ethapi.TransactionArgs), and errors carry
// go-ethereum's wording, because clients and conformance suites compare
// responses against geth's. Where this package deviates, the function's
// documentation says so.
package codec
