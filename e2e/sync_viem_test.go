package e2e

import "testing"

// TestSendRawTransactionSyncViem runs js/sync-viem.test.mjs: viem's
// sendRawTransactionSync and sendTransactionSync, with viem's default
// options, against / and /preconf of a node with 1 s blocks, and its error
// codes against a node whose block never seals in the test (a 300 ms
// default timeout). The file skips itself under the other runners, which
// do not set STOCKNODE_SYNC_SUITE.
func TestSendRawTransactionSyncViem(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	n := startNode(t, "--block-time", "1s", "--preconf-interval", "100ms")
	long := startNode(t, "--block-time", "1h", "--preconf-interval", "100ms", "--rpc.txsync.defaulttimeout", "300ms")
	runJSFiles(t, nodeBin, n, func(name string) bool { return name == "sync-viem" },
		"STOCKNODE_SYNC_SUITE=1", "STOCKNODE_RPC_LONG="+long.URL)
}
