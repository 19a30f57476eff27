package rpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/callbound"
	"github.com/stocknode/stocknode/peer"
	"github.com/stocknode/stocknode/ratelimit"
)

// loopInit is init code that jumps to itself until its gas runs out.
var loopInit = hexutil.MustDecode("0x5b600056") // JUMPDEST PUSH1 0 JUMP

// logContract deploys logRuntime and returns its address.
func (n *testNode) logContract() common.Address {
	n.t.Helper()
	hash := n.send(3, nil, new(big.Int), 200_000, deployCode(logRuntime))
	return common.HexToAddress(n.waitSealed(hash)["contractAddress"].(string))
}

// emit sends count log transactions to contract, one per block at most, and
// waits until the last is sealed.
func (n *testNode) emit(contract common.Address, count int) {
	n.t.Helper()
	for i := 0; i < count; i++ {
		n.waitSealed(n.send(3, &contract, new(big.Int), 100_000, []byte{byte(i)}))
	}
}

func (n *testNode) head() uint64 {
	n.t.Helper()
	var h hexutil.Uint64
	n.result(&h, "eth_blockNumber")
	return uint64(h)
}

// A polling filter reports every log sealed since it was installed,
// whatever its fromBlock says, even when polled blocks after the log.
func TestFilterDeliversEveryLogSinceCreation(t *testing.T) {
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond)
	contract := n.logContract()
	criteria := []map[string]any{
		{},
		{"fromBlock": "latest"},
		{"fromBlock": "latest", "toBlock": "latest"},
		{"fromBlock": "0x0"},
		{"address": contract},
	}
	ids := make([]string, len(criteria))
	for i, c := range criteria {
		n.result(&ids[i], "eth_newFilter", c)
	}
	n.emit(contract, 1)
	sealed := n.head()
	waitFor(t, "two more blocks", func() bool { return n.head() >= sealed+2 })
	for i, id := range ids {
		var logs []map[string]any
		n.result(&logs, "eth_getFilterChanges", id)
		if len(logs) != 1 {
			t.Errorf("filter %v: %d logs, want 1", criteria[i], len(logs))
		}
		n.result(&logs, "eth_getFilterChanges", id)
		if len(logs) != 0 {
			t.Errorf("filter %v, second poll: %d logs again", criteria[i], len(logs))
		}
	}
}

func TestGetLogsLimits(t *testing.T) {
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(tc *testConfig) {
		c := &tc.rpc
		c.LogsMaxResults = 3
	})
	contract := n.logContract()
	from := n.head() + 1
	n.emit(contract, 5)
	to := n.head()

	resp := n.call("eth_getLogs", map[string]any{"fromBlock": hexutil.Uint64(from), "toBlock": hexutil.Uint64(to), "address": contract})
	if resp.Error == nil || resp.Error.Code != -32005 || !strings.HasPrefix(resp.Error.Message, "query returned more than 3 results; try the range ") {
		t.Fatalf("5 logs over a cap of 3: %+v", resp.Error)
	}
	var fits struct{ From, To hexutil.Uint64 }
	if err := json.Unmarshal(resp.Error.Data, &fits); err != nil || uint64(fits.From) != from || uint64(fits.To) >= to {
		t.Fatalf("suggested range %s (from %d to %d): %v", resp.Error.Data, from, to, err)
	}
	var logs []map[string]any
	n.result(&logs, "eth_getLogs", map[string]any{"fromBlock": fits.From, "toBlock": fits.To, "address": contract})
	if len(logs) == 0 || len(logs) > 3 {
		t.Fatalf("the suggested range returned %d logs", len(logs))
	}
}

func TestGetLogsResponseRoom(t *testing.T) {
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(tc *testConfig) {
		c := &tc.rpc
		c.BatchResponseLimit = 1500
	})
	contract := n.logContract()
	from := n.head() + 1
	n.emit(contract, 5)
	resp := n.call("eth_getLogs", map[string]any{"fromBlock": hexutil.Uint64(from), "toBlock": "latest", "address": contract})
	if resp.Error == nil || !strings.HasPrefix(resp.Error.Message, "query returned more than 1500 bytes; try the range ") {
		t.Fatalf("logs past the response room: %+v", resp.Error)
	}
}

// A filter with more logs than a poll may return hands them out over
// several polls, each log once.
func TestFilterChangesOverSeveralPolls(t *testing.T) {
	n := newTestNode(t, 50*time.Millisecond, 10*time.Millisecond, func(tc *testConfig) {
		c := &tc.rpc
		c.LogsMaxResults = 2
	})
	contract := n.logContract()
	var id string
	n.result(&id, "eth_newFilter", map[string]any{"address": contract})
	n.emit(contract, 5)
	seen := map[string]bool{}
	for poll := 0; poll < 10 && len(seen) < 5; poll++ {
		var logs []map[string]any
		n.result(&logs, "eth_getFilterChanges", id)
		if len(logs) > 2 {
			t.Fatalf("poll %d returned %d logs over a cap of 2", poll, len(logs))
		}
		for _, l := range logs {
			key := fmt.Sprint(l["transactionHash"])
			if seen[key] {
				t.Fatalf("log of %s delivered twice", key)
			}
			seen[key] = true
		}
	}
	if len(seen) != 5 {
		t.Fatalf("%d of 5 logs delivered", len(seen))
	}
}

func TestFilterCaps(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		c := &tc.rpc
		c.MaxFilters, c.FiltersPerClient = 3, 2
	})
	alice := peer.New(netip.MustParseAddr("192.0.2.1"), nil)
	bob := peer.New(netip.MustParseAddr("192.0.2.2"), nil)
	newFilter := func(p *peer.Peer) rpcResponse {
		out, _ := n.srv.HandleFrom(p, Standard, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_newBlockFilter"}`), nil, nil)
		var resp rpcResponse
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for i, step := range []struct {
		who  *peer.Peer
		want string // error message prefix; empty: installed
	}{
		{alice, ""},
		{alice, ""},
		{alice, "too many filters from 192.0.2.1: at most 2 per client (--rpc.filters.per-client)"},
		{bob, ""},
		{bob, "too many filters: the node holds its limit of 3 (--rpc.filters.max)"},
	} {
		resp := newFilter(step.who)
		switch {
		case step.want == "" && resp.Error != nil:
			t.Fatalf("step %d: %s", i, resp.Error.Message)
		case step.want != "" && (resp.Error == nil || resp.Error.Code != -32005 || !strings.HasPrefix(resp.Error.Message, step.want)):
			t.Fatalf("step %d: %+v, want -32005 %q", i, resp.Error, step.want)
		}
	}
	topics := make([]string, maxSubTopics+1)
	for i := range topics {
		topics[i] = common.BigToHash(big.NewInt(int64(i))).Hex()
	}
	if resp := n.call("eth_getLogs", map[string]any{"topics": []any{topics}}); resp.Error == nil || !strings.Contains(resp.Error.Message, "exceed max addresses or topics per search position") {
		t.Fatalf("1001 topics at one position: %+v", resp.Error)
	}
}

func TestFeeHistoryPercentileCap(t *testing.T) {
	n := newTestNode(t, 0, 0)
	ps := make([]float64, maxPercentiles+1)
	for i := range ps {
		ps[i] = float64(i) * 100 / float64(len(ps))
	}
	if resp := n.call("eth_feeHistory", "0x1", "latest", ps); resp.Error == nil || !strings.Contains(resp.Error.Message, "over the query limit 100") {
		t.Fatalf("101 percentiles: %+v", resp.Error)
	}
	if resp := n.call("eth_feeHistory", "0x1", "latest", ps[:maxPercentiles]); resp.Error != nil {
		t.Fatalf("100 percentiles: %s", resp.Error.Message)
	}
}

// A request's deadline stops its running call and drops the calls of the
// batch that have not run.
func TestRequestDeadline(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		c := &tc.rpc
		c.RequestTimeout, c.EVMTimeout, c.GasCap = 100*time.Millisecond, time.Minute, 1<<40
	})
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_call","params":[{"data":"%s","gas":"0x%x"},"latest"]}`, id, hexutil.Encode(loopInit), uint64(1<<40))
	}
	var resps []rpcResponse
	if err := json.Unmarshal([]byte(n.raw("["+call(1)+","+call(2)+","+call(3)+"]")), &resps); err != nil {
		t.Fatal(err)
	}
	for _, r := range resps {
		if r.Error == nil || r.Error.Code != -32002 || r.Error.Message != "request timed out" {
			t.Fatalf("batch element %s: %+v, want -32002 request timed out", r.ID, r.Error)
		}
	}
}

// A call whose client hangs up is stopped.
func TestCallStopsWhenClientLeaves(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		c := &tc.rpc
		c.EVMTimeout, c.GasCap = time.Minute, 1<<40
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	client.Close()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"%s","gas":"0x%x"},"latest"]}`, hexutil.Encode(loopInit), uint64(1<<40))
	out, _ := n.srv.HandleFrom(peer.FromConn(server), Standard, []byte(body), nil, nil)
	if !strings.Contains(string(out), callbound.ErrGone.Error()) {
		t.Fatalf("call of a client that left = %s, want %q", out, callbound.ErrGone)
	}
}

func TestRateLimits(t *testing.T) {
	n := newTestNode(t, 0, 0, func(tc *testConfig) {
		c := &tc.rpc
		c.RateLimit = ratelimit.Config{Requests: 1, RequestBurst: 2}
	})
	p := peer.New(netip.MustParseAddr("192.0.2.9"), nil)
	send := func(body string) (rpcResponse, time.Duration) {
		out, retry := n.srv.HandleFrom(p, Standard, []byte(body), nil, nil)
		var resp rpcResponse
		json.Unmarshal(out, &resp)
		return resp, retry
	}
	const one = `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`
	for i := 0; i < 2; i++ {
		if resp, retry := send(one); resp.Error != nil || retry != 0 {
			t.Fatalf("request %d within the burst: %+v, retry %v", i, resp.Error, retry)
		}
	}
	resp, retry := send(one)
	if resp.Error == nil || resp.Error.Code != -32005 || !strings.HasPrefix(resp.Error.Message, "rate limited") || retry <= 0 {
		t.Fatalf("over the rate: %+v, retry %v", resp.Error, retry)
	}
	// Local callers (no peer) are not metered.
	if resp := n.call("eth_blockNumber"); resp.Error != nil {
		t.Fatalf("local caller: %s", resp.Error.Message)
	}
}
