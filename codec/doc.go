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
// accepts and rejects them (hexutil, common.Address and common.Hash,
// rpc.BlockNumber and rpc.BlockNumberOrHash, ethapi.TransactionArgs), and
// errors carry go-ethereum's wording, because clients and conformance suites
// compare responses with geth's. The deliberate differences:
//
//   - Hex decoding errors are hexutil's error values themselves ("invalid
//     hex string"), where geth wraps them as "json: cannot unmarshal invalid
//     hex string into Go value of type hexutil.Uint64".
//   - Envelope member names match exactly, as JSON-RPC 2.0 requires; geth
//     folds their case. Parameter objects fold case as geth does.
//   - A method name written with escapes is an invalid request.
//   - Nesting is limited to MaxDepth (64) levels; encoding/json allows 10000.
//   - ParseCallArgs rejects "data" and "input" that differ, which geth only
//     does when it sends a transaction (eth_call silently prefers "input"),
//     keeps the list fields raw for the caller to decode, and ignores the
//     blob sidecar fields.
package codec
