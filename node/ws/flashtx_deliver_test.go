package ws

import (
	"io"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/node/rpc"
)

// Delivering pre-confirmed transactions to filtered newFlashblockTransactions
// subscribers allocates nothing either: matching a filter against a
// transaction's logs and framing the shared bytes are all a shard does.
func TestDeliverFlashTxsDoesNotAllocate(t *testing.T) {
	c, client, _ := socketConn(t)
	contract := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	filter, err := rpc.ParseLogFilter([]byte(`{"address":"` + contract.Hex() + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	c.subs = []*subscription{
		{id: []byte("0x0123456789abcdef0123456789abcdef"), kind: kindFlashTxFull, filter: filter, active: true},
		{id: []byte("0xfedcba9876543210fedcba9876543210"), kind: kindFlashTxs, active: true},
	}
	tx := &payload{b: make([]byte, 1500)} // about a full notification
	for i := range tx.b {
		tx.b[i] = 'a'
	}
	hash := &payload{b: []byte(`"0x` + common.Hash{1}.Hex()[2:] + `"`)}
	matching := []*types.Log{{Address: common.Address{1}}, {Address: contract}}
	full := &delivery{kind: kindFlashTxFull, txFull: []*payload{tx, tx}, txLogs: [][]*types.Log{nil, matching}}
	hashes := &delivery{kind: kindFlashTxs, txHashes: []*payload{hash, hash}}
	// One event of each: the matching transaction to the first
	// subscription, both hashes to the second. The reader takes them
	// before the next are sent, as a subscriber that keeps up does.
	frames := make([]byte, frameSize(c.subs[0], tx)+2*frameSize(c.subs[1], hash))
	read := make(chan error)
	go func() {
		for {
			_, err := io.ReadFull(client, frames)
			read <- err
			if err != nil {
				return
			}
		}
	}()
	deliver := func() {
		c.deliver(full)
		c.deliver(hashes)
		if err := <-read; err != nil {
			t.Fatal(err)
		}
	}
	deliver() // the connection's buffer grows once
	allocs := testing.AllocsPerRun(1000, deliver)
	if allocs != 0 {
		t.Fatalf("deliver allocates %.1f times per event, want 0", allocs)
	}
	if c.closing {
		t.Fatal("the connection was closed as too slow: the reader fell behind")
	}
}

// frameSize is the length on the wire of p notified to sub.
func frameSize(sub *subscription, p *payload) int {
	n := len(notifyPrefix) + len(sub.id) + len(notifyMiddle) + len(p.b) + len(notifySuffix)
	if n < 126 {
		return 2 + n
	}
	return 4 + n
}
