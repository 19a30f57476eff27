package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// The txpool namespace against the binary, with pending and queued
// transactions, in geth's shapes (go-ethereum's internal/ethapi TxPoolAPI,
// documented at geth's "txpool namespace" page): txpool_status counts as
// quantities; content and inspect as {"pending"|"queued": {checksummed
// sender: {decimal nonce: transaction or summary}}}; contentFrom the same
// for one sender without the sender level.
func TestTxpoolNamespace(t *testing.T) {
	n := startNode(t, "--block-time", "0") // no blocks: the pool keeps what it gets
	c, rc := n.dial(t)
	ctx := testContext(t, time.Minute)
	to := common.HexToAddress("0x00000000000000000000000000000000000000e2")
	a, b := devAccount(t, 2), devAccount(t, 3)
	// --dev pools the example tokens' issuance too.
	var before map[string]hexutil.Uint
	if err := rc.CallContext(ctx, &before, "txpool_status"); err != nil {
		t.Fatal(err)
	}
	var sent []common.Hash
	for _, tx := range []struct {
		from  account
		nonce uint64
	}{{a, 0}, {a, 1}, {b, 2}} { // b's nonce 2 waits behind a gap
		signed := signTxNonce(t, ctx, c, tx.from, tx.nonce, &to, big.NewInt(int64(100+tx.nonce)), nil)
		if err := c.SendTransaction(ctx, signed); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, signed.Hash())
	}

	var status map[string]hexutil.Uint
	if err := rc.CallContext(ctx, &status, "txpool_status"); err != nil {
		t.Fatal(err)
	}
	if status["pending"] != before["pending"]+2 || status["queued"] != before["queued"]+1 || len(status) != 2 {
		t.Errorf("txpool_status = %v, before the three %v", status, before)
	}

	var content map[string]map[string]map[string]map[string]any
	if err := rc.CallContext(ctx, &content, "txpool_content"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		section string
		sender  common.Address
		nonce   uint64
		hash    common.Hash
	}{{"pending", a.addr, 0, sent[0]}, {"pending", a.addr, 1, sent[1]}, {"queued", b.addr, 2, sent[2]}} {
		tx := content[c.section][c.sender.Hex()][strconv.FormatUint(c.nonce, 10)]
		if tx == nil || tx["hash"] != c.hash.Hex() || tx["blockHash"] != nil || tx["nonce"] != hexutil.EncodeUint64(c.nonce) {
			t.Errorf("txpool_content[%s][%s][%d] = %v", c.section, c.sender.Hex(), c.nonce, tx)
		}
	}

	var from map[string]map[string]map[string]any
	if err := rc.CallContext(ctx, &from, "txpool_contentFrom", b.addr); err != nil {
		t.Fatal(err)
	}
	if len(from["pending"]) != 0 || from["queued"]["2"]["hash"] != sent[2].Hex() {
		t.Errorf("txpool_contentFrom = %v", from)
	}

	var inspect map[string]map[string]map[string]string
	if err := rc.CallContext(ctx, &inspect, "txpool_inspect"); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^0x[0-9a-fA-F]{40}: \d+ wei \+ \d+ gas × \d+ wei$`)
	for section, senders := range inspect {
		for sender, lines := range senders {
			for nonce, l := range lines {
				if !line.MatchString(l) {
					t.Errorf("txpool_inspect[%s][%s][%s] = %q", section, sender, nonce, l)
				}
			}
		}
	}
	if got := inspect["pending"][a.addr.Hex()]["1"]; !strings.HasPrefix(got, fmt.Sprintf("%s: 101 wei + 21000 gas × ", to.Hex())) {
		t.Errorf("inspect line %q", got)
	}

	var raw json.RawMessage
	if err := rc.CallContext(ctx, &raw, "txpool_contentFrom", "0x12"); err == nil {
		t.Errorf("txpool_contentFrom(0x12) = %s", raw)
	}
}

// With blocks, a transaction is pending in the pool until its block is
// sealed, then gone; a queued one stays.
func TestTxpoolFollowsBlocks(t *testing.T) {
	n := startNode(t, "--block-time", "1s", "--preconf-interval", "50ms")
	c, rc := n.dial(t)
	ctx := testContext(t, time.Minute)
	to := common.HexToAddress("0x00000000000000000000000000000000000000e3")
	a := devAccount(t, 2)
	queued := signTxNonce(t, ctx, c, a, 5, &to, big.NewInt(1), nil)
	if err := c.SendTransaction(ctx, queued); err != nil {
		t.Fatal(err)
	}
	tx := send(t, ctx, c, a, &to, big.NewInt(1), nil)
	waitSealed(t, ctx, c, tx.Hash())
	var from map[string]map[string]map[string]any
	poll(t, ctx, "the sealed transaction to leave the pool", func() bool {
		if err := rc.CallContext(ctx, &from, "txpool_contentFrom", a.addr); err != nil {
			t.Fatal(err)
		}
		return len(from["pending"]) == 0
	})
	if from["queued"]["5"]["hash"] != queued.Hash().Hex() {
		t.Errorf("queued transaction: %v", from)
	}
}
