package e2e

import (
	"strings"
	"testing"
)

// replicaSuites prefixes the JavaScript files that need a sequencer and a
// read replica of it (js/replica-*.test.mjs): the other JavaScript tests
// leave them out.
const replicaSuites = "replica-"

// TestJavaScriptAgainstReplica runs the ethers v6 suites js/replica-*.test.mjs
// against a read replica (--follow) of a sequencer that exposes its log
// (--nats.listen): the replica catches up from genesis, serves reads from
// its replay of the log and relays transactions and drips to the
// sequencer, whose own answers js/replica-ethers compares the replica's
// with (STOCKNODE_SEQUENCER_RPC); js/replica-defaults is a plain script
// with ethers' default options. Both nodes in the default configuration,
// as TestJavaScriptClients: the replica's / answers receipts of sealed
// blocks only, as the sequencer's.
func TestJavaScriptAgainstReplica(t *testing.T) {
	nodeBin := jsPrerequisites(t)
	seq := startNode(t, "--nats.listen", "127.0.0.1:0")
	replica := startNode(t, followFlags(t, seq)...)
	runJSFiles(t, nodeBin, replica, func(name string) bool { return strings.HasPrefix(name, replicaSuites) },
		"STOCKNODE_SEQUENCER_RPC="+seq.URL)
}
