// Package e2e holds stocknode's client end-to-end tests: they build the
// binary, start `stocknode --dev --http.port 0`, and talk to it over HTTP and
// over WebSocket (/ws) the way applications do, with go-ethereum's ethclient
// and rpc.Client, with raw HTTP requests (bad input), and with ethers v6 and
// viem (the JavaScript suite in js/, run by `node --test` from
// TestJavaScriptClients over HTTP and TestJavaScriptWebSocketClients over
// WebSocket: js/ws-*.test.mjs, eth_subscribe as dapps use it; and
// js/replica-*.test.mjs from TestJavaScriptAgainstReplica, against a read
// replica of a sequencer). The JavaScript suites run against nodes in the
// default configuration, on / (a receipt means a sealed block), with each
// library's default options, as a dapp does; js/dapp-ethers.test.mjs is the
// plain ethers dapp flow (scripts/dapp-flow.mjs runs it by hand against a
// running node).
//
// The sequencer-log tests (seqlog_test.go, replica_test.go) kill nodes with
// SIGKILL and run a sequencer with read replicas (--follow) on a NATS
// JetStream cluster of three servers started inside the test process
// (natscluster_test.go), one of which they shut down under load.
//
//	go test -count=1 -run 'Replica|Fenced|Kill' ./e2e/   # only those
//
// The developer-tool tests run Foundry's cast (cast_test.go installs
// @foundry-rs/cast once into ~/.cache/stocknode-anchors/npm, beside
// compare's anvil; $CAST names another) against the binary: `cast run`
// (trace_test.go), `cast proof` and `cast storage` (proof_test.go); viem's
// simulateCalls (js/simulate.test.mjs, simulate_test.go), ethers' and
// viem's waits for pre-confirmed receipts on /preconf, the Flashblocks view,
// against the same node's / (js/flashblocks-*.test.mjs, flashblocks_test.go,
// which also compares /preconf and /preconf/ws with / and /ws) and the
// txpool methods (txpool_test.go).
//
//	go test -count=1 -run 'Cast|Trace|Proof|Simulate|Flashblock|Txpool' ./e2e/
//
// TestExamples (examples_test.go) runs the app developer's examples of
// ../examples (ethers, viem, and forge script with cast; forge installed from
// npm beside cast, compiling with this directory's solc-js) against one node
// in the default configuration, all at once.
//
//	go test -count=1 -run TestExamples -v ./e2e/   # -v shows what each printed
//
// The Solidity contract the tests deploy is contracts/Token.sol; its compiled
// form contracts/Token.json is committed, so the Go tests need no compiler.
// Regenerate it with `cd e2e && npm ci && npm run compile`.
//
//	go test -race -count=1 ./e2e/             # everything (installs the npm packages if missing)
//	go test -count=1 -run JavaScript ./e2e/   # only the ethers/viem suite
//	go test -count=1 -run 'WebSocket' ./e2e/  # only the WebSocket tests (ethclient, ethers, viem)
//	cd e2e && STOCKNODE_RPC=http://127.0.0.1:8545 node --test js/   # the JS suite against a running node
//
// The JS files read STOCKNODE_RPC and STOCKNODE_WS (default: the RPC URL
// with ws:// and /ws). The Flashblocks files want STOCKNODE_RPC at a node's
// /preconf (STOCKNODE_RPC_STANDARD defaults to the same URL without it) and
// a node with 3 s blocks (stocknode --dev --block-time 3s).
package e2e
