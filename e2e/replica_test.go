package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/seqlog"
)

var followingRe = regexp.MustCompile(`msg="Following the sequencer's log" head=(\d+) from=(\d+)`)

// TestReplicasOnCluster is the deployment: a sequencer whose log is
// a stream of three replicas on a three-server NATS cluster, and two read
// replicas following it through different servers. What a client sees
// must not depend on which node it asks, nor on a NATS server lost, nor on
// a replica that crashed.
func TestReplicasOnCluster(t *testing.T) {
	cluster := startNATSCluster(t, 3)
	seq := newPeer(t, "sequencer", startNode(t, "--dev=false", "--datadir", t.TempDir(),
		"--nats.url", cluster.URL(0), "--nats.replicas", "3",
		"--block-time", "500ms", "--preconf-interval", "100ms", "--preview.examples=false"))
	replicaArgs := func(first int) []string {
		return []string{"--dev=false", "--follow", "--datadir", t.TempDir(), "--nats.url", cluster.URL(first), "--preview.examples=false"}
	}
	r1Args, r2Args := replicaArgs(1), replicaArgs(2)
	replicas := []*peer{
		newPeer(t, "replica 1", startNode(t, r1Args...)),
		newPeer(t, "replica 2", startNode(t, r2Args...)),
	}
	all := append([]*peer{seq}, replicas...)
	accounts := devAccounts(t, 8)

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"latest and pending equal the sequencer's at every block", func(t *testing.T) {
			testSameViews(t, seq, replicas, accounts[0])
		}},
		{"a transaction sent to a replica", func(t *testing.T) {
			testRelayedTransaction(t, all, replicas, accounts[1])
		}},
		{"refusals read as the sequencer's", func(t *testing.T) {
			testRelayedRefusals(t, seq, replicas, accounts[1], accounts[2])
		}},
		{"a NATS server lost mid-flood", func(t *testing.T) {
			testFloodLosingNATSServer(t, cluster, all, accounts[3:7])
		}},
		{"a replica killed and restarted", func(t *testing.T) {
			testReplicaRestart(t, seq, replicas[1], r2Args, accounts[7])
		}},
	}
	for _, step := range steps {
		if !t.Run(step.name, step.run) {
			return // the later steps build on this one's state
		}
	}
}

// testSameViews: while transfers flow through all three nodes, every
// block the sequencer seals is the replicas' block of that number, and
// latest, pending (its transaction hashes) and the sender's pending balance
// and nonce are the same on all three at one moment.
func testSameViews(t *testing.T, seq *peer, replicas []*peer, from account) {
	ctx := testContext(t, 30*time.Second)
	all := append([]*peer{seq}, replicas...)
	traffic := startTraffic(t, ctx, all, from, 30*time.Millisecond)

	head, err := seq.eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	view := func(c *rpc.Client) (string, error) { return readView(ctx, c, from.addr) }
	for number := head + 1; number <= head+6; number++ {
		var want common.Hash
		poll(t, ctx, fmt.Sprintf("the sequencer seals block %d", number), func() bool {
			h, ok := blockHash(t, ctx, seq.rpc, number)
			want = h
			return ok
		})
		for _, r := range replicas {
			within := testContext(t, 2*time.Second)
			poll(t, within, fmt.Sprintf("%s's block %d is the sequencer's %s", r.name, number, want), func() bool {
				h, ok := blockHash(t, ctx, r.rpc, number)
				return ok && h == want
			})
		}
		settle(t, time.Second, fmt.Sprintf("views after block %d", number), view, seq, replicas)
	}
	hashes := traffic.stop(t)
	if len(hashes) < 20 {
		t.Fatalf("only %d transfers sent in %d blocks: pending was hardly exercised", len(hashes), 6)
	}
	for _, p := range all {
		waitAllSealed(t, ctx, p, hashes)
		sameReceipts(t, ctx, seq, p, hashes)
	}
}

// testRelayedTransaction: a transaction sent to a replica is answered with
// its hash, pre-confirmed in every node's pending (each node's
// newFlashblocks stream shows it: a poll could miss a 500 ms block), and
// sealed with the same receipt everywhere.
func testRelayedTransaction(t *testing.T, all, replicas []*peer, from account) {
	ctx := testContext(t, 30*time.Second)
	nonce, err := all[0].eth.PendingNonceAt(ctx, from.addr)
	if err != nil {
		t.Fatal(err)
	}
	for i, via := range replicas {
		t.Run(via.name, func(t *testing.T) {
			streams := make([]<-chan flashblock, len(all))
			for j, p := range all {
				streams[j] = watchFlashblocks(t, ctx, p)
			}
			tx := signTransfer(from, nonce+uint64(i), freshAddress(t), big.NewInt(4242))
			if err := sendRaw(ctx, via.rpc, tx); err != nil {
				t.Fatalf("send through %s: %v", via.name, err)
			}
			for j, p := range all {
				waitFlashblock(t, ctx, p.name, streams[j], tx.Hash())
			}
			for _, p := range all {
				waitSealed(t, ctx, p.eth, tx.Hash())
			}
			for _, p := range all[1:] {
				sameReceipts(t, ctx, all[0], p, []common.Hash{tx.Hash()})
			}
		})
	}
}

// testRelayedRefusals: a replica answers a transaction the sequencer
// refuses with the sequencer's error, word for word and code for code.
func testRelayedRefusals(t *testing.T, seq *peer, replicas []*peer, used, unused account) {
	ctx := testContext(t, 30*time.Second)
	nonce, err := seq.eth.NonceAt(ctx, used.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nonce == 0 {
		t.Fatalf("%s has sent nothing: a nonce too low needs an account that has", used.addr)
	}
	broke, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := freshAddress(t)
	tests := []struct {
		name string
		tx   *types.Transaction
		says string
	}{
		{"nonce too low", signTx1559(used, 0, to, big.NewInt(1), params.TxGas, big.NewInt(100*params.GWei)), "nonce too low"},
		{"fee cap under the base fee", signTx1559(unused, 0, to, big.NewInt(1), params.TxGas, big.NewInt(1)), "max fee per gas less than block base fee"},
		{"insufficient funds", signTx1559(account{key: broke, addr: crypto.PubkeyToAddress(broke.PublicKey)}, 0, to, big.NewInt(params.Ether), params.TxGas, big.NewInt(100*params.GWei)), "insufficient funds"},
		{"intrinsic gas too low", signTx1559(unused, 0, to, big.NewInt(1), params.TxGas-1, big.NewInt(100*params.GWei)), "intrinsic gas too low"},
	}
	for _, tt := range tests {
		for _, r := range replicas {
			t.Run(tt.name+" through "+r.name, func(t *testing.T) {
				// The sequencer's words may carry its base fee, which moves
				// with each block: they are compared with the replica's
				// only when the sequencer said the same before and after.
				for attempt := 0; ; attempt++ {
					before := sendRaw(ctx, seq.rpc, tt.tx)
					relayed := sendRaw(ctx, r.rpc, tt.tx)
					after := sendRaw(ctx, seq.rpc, tt.tx)
					if before == nil || relayed == nil {
						t.Fatalf("accepted (sequencer: %v, %s: %v), want refused with %q", before, r.name, relayed, tt.says)
					}
					if rpcErrorText(before) != rpcErrorText(after) && attempt < 5 {
						continue
					}
					if !strings.Contains(before.Error(), tt.says) {
						t.Fatalf("the sequencer says %q, want %q in it", before, tt.says)
					}
					if rpcErrorText(relayed) != rpcErrorText(before) {
						t.Fatalf("%s says %s, the sequencer %s", r.name, rpcErrorText(relayed), rpcErrorText(before))
					}
					return
				}
			})
		}
	}
}

// testFloodLosingNATSServer: transfers from several senders through all
// three nodes at once, and the server leading the log's stream (and
// holding a replica's consumer and the sequencer's connection) shut down a
// third of the way in. Every transfer is answered with its hash (but for a
// relayed request lost in flight with the server), every one is sealed,
// the balances are what the transfers make them on every node, no node
// exits and the replicas keep up.
func testFloodLosingNATSServer(t *testing.T, cluster *natsCluster, all []*peer, senders []account) {
	const perSender = 100
	ctx := testContext(t, 60*time.Second)
	seq := all[0]
	recipients := make([]common.Address, 8)
	for i := range recipients {
		recipients[i] = freshAddress(t)
	}
	type sender struct {
		account
		nonce    uint64
		balance  *big.Int
		txs      []*types.Transaction
		failures []sendFailure // sends not answered with the hash at once
		slowest  time.Duration // of the sends answered
	}
	ss := make([]*sender, len(senders))
	for i, a := range senders {
		nonce, err := seq.eth.NonceAt(ctx, a.addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		balance, err := seq.eth.BalanceAt(ctx, a.addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		ss[i] = &sender{account: a, nonce: nonce, balance: balance}
	}

	// Moving the stream's leader waits for the preferred server to be
	// current, which on a loaded machine takes several tries.
	worst := worstServer(t, testContext(t, 60*time.Second), cluster)
	var sent atomic.Int64
	total := int64(perSender * len(ss))
	lost := make(chan [2]time.Time, 1) // the shutdown's start and end
	go func() {
		for sent.Load() < total/3 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		begin := time.Now()
		cluster.Shutdown(worst)
		lost <- [2]time.Time{begin, time.Now()}
	}()

	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range perSender {
				nonce := s.nonce + uint64(k)
				tx := signTransfer(s.account, nonce, recipients[(i*perSender+k)%len(recipients)], big.NewInt(int64(1_000_000+i*1000+k)))
				s.txs = append(s.txs, tx)
				// Paced, so that the flood lasts through the server's loss
				// and the cluster's recovery, not only until the first.
				time.Sleep(10 * time.Millisecond)
				// A send that fails is retried through the next node, so
				// that the later nonces are not stranded; the failure is
				// reported all the same.
				for attempt := 0; ; attempt++ {
					via := all[(i+k+attempt)%len(all)]
					sendStart := time.Now()
					err := sendRaw(ctx, via.rpc, tx)
					if err == nil {
						s.slowest = max(s.slowest, time.Since(sendStart))
						break
					}
					s.failures = append(s.failures, sendFailure{nonce: nonce, via: via, at: sendStart, err: err})
					if strings.Contains(err.Error(), "already known") || strings.Contains(err.Error(), "nonce too low") || attempt == 10 || ctx.Err() != nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				sent.Add(1)
			}
		}()
	}
	wg.Wait()
	var lostAt [2]time.Time
	select {
	case lostAt = <-lost:
	case <-ctx.Done():
		t.Fatal("the NATS server was not shut down")
	}
	var slowest time.Duration
	for _, s := range ss {
		slowest = max(slowest, s.slowest)
	}
	t.Logf("%d transfers sent in %v (the slowest answered in %v); NATS server %s (the stream's leader, a replica's consumer, the sequencer's connection) shut down %v after the start",
		total, time.Since(start).Round(time.Millisecond), slowest.Round(time.Millisecond), cluster.Name(worst), lostAt[0].Sub(start).Round(time.Millisecond))
	// NATS does not guarantee a request's delivery: one on its way
	// through the server as it goes is lost, and the replica answers, after
	// its relay timeout, that the transaction may still be pooled (as
	// node/relay promises). Only those are forgiven, and their transfers
	// must be sealed all the same (below).
	for _, s := range ss {
		for _, f := range s.failures {
			what := fmt.Sprintf("%s nonce %d through %s, sent %v after the start (the shutdown began at %v): %v",
				s.addr, f.nonce, f.via.name, f.at.Sub(start).Round(time.Millisecond), lostAt[0].Sub(start).Round(time.Millisecond), f.err)
			inFlight := f.at.After(lostAt[0].Add(-time.Second)) && f.at.Before(lostAt[1].Add(time.Second))
			lostInFlight := f.via != seq && strings.Contains(f.err.Error(), "did not answer within") && inFlight
			if lostInFlight {
				t.Logf("relayed request lost with the server: %s", what)
			} else {
				t.Errorf("%s", what)
			}
		}
	}

	// Keeping up: the replicas serve what the sequencer serves within
	// 3 s of the flood's end, which comes a second or more after the
	// loss. A replica whose consumer was on the lost server misses two
	// heartbeats (2 s) before it reads from another.
	view := func(c *rpc.Client) (string, error) { return readView(ctx, c, ss[0].addr) }
	settle(t, 3*time.Second, "the replicas' views after the flood", view, seq, all[1:])

	var hashes []common.Hash
	for _, s := range ss {
		for _, tx := range s.txs {
			hashes = append(hashes, tx.Hash())
		}
	}
	receipts := waitAllSealed(t, ctx, seq, hashes)
	settle(t, 3*time.Second, "the replicas' views with every transfer sealed", view, seq, all[1:])

	// What the transfers make the balances, from the sequencer's receipts.
	want := map[common.Address]*big.Int{}
	for _, r := range recipients {
		want[r] = new(big.Int)
	}
	wantNonce := map[common.Address]uint64{}
	for _, s := range ss {
		b := new(big.Int).Set(s.balance)
		for _, tx := range s.txs {
			r := receipts[tx.Hash()]
			fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
			b.Sub(b, fee)
			b.Sub(b, tx.Value())
			want[*tx.To()].Add(want[*tx.To()], tx.Value())
		}
		want[s.addr] = b
		wantNonce[s.addr] = s.nonce + perSender
	}
	for _, p := range all {
		sameReceipts(t, ctx, seq, p, hashes)
		for addr, w := range want {
			got, err := p.eth.BalanceAt(ctx, addr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Cmp(w) != 0 {
				t.Errorf("%s: balance of %s is %s, the transfers make it %s", p.name, addr, got, w)
			}
		}
		for addr, w := range wantNonce {
			if got, err := p.eth.NonceAt(ctx, addr, nil); err != nil || got != w {
				t.Errorf("%s: nonce of %s is %d (%v), want %d", p.name, addr, got, err, w)
			}
		}
		if p.exited() {
			t.Errorf("%s exited (%v)", p.name, p.err)
		}
	}
	if h := all[0].health(t); h.Role != "sequencer" || h.Replica != nil {
		t.Errorf("%s's /health: %+v, want the sequencer's", all[0].name, h)
	}
	for _, r := range all[1:] {
		h := r.health(t)
		if h.Role != "replica" || h.Replica == nil || h.Replica.LagSeconds > 1 {
			t.Errorf("%s's /health after the flood: %+v, want a replica's, its lag under a second", r.name, h)
		}
	}
}

// sendFailure is a send answered with an error.
type sendFailure struct {
	nonce uint64
	via   *peer
	at    time.Time // when it was sent
	err   error
}

// testReplicaRestart: a replica killed with SIGKILL and started again on
// its datadir follows from its own head, not from genesis, catches up with
// what was sealed while it was down, and its chain is the sequencer's
// block for block.
func testReplicaRestart(t *testing.T, seq, r *peer, args []string, from account) {
	ctx := testContext(t, 60*time.Second)
	before, err := r.eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.kill()

	// Blocks with transactions sealed while the replica is down: it must
	// execute them to catch up, not only skip empty ones.
	nonce, err := seq.eth.PendingNonceAt(ctx, from.addr)
	if err != nil {
		t.Fatal(err)
	}
	var hashes []common.Hash
	for k := range 5 {
		tx := signTransfer(from, nonce+uint64(k), freshAddress(t), big.NewInt(int64(100+k)))
		if err := sendRaw(ctx, seq.rpc, tx); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, tx.Hash())
	}
	waitAllSealed(t, ctx, seq, hashes)

	restarted := newPeer(t, r.name+" restarted", startNode(t, args...))
	var m []string
	poll(t, testContext(t, 10*time.Second), "the restarted replica's \"Following the sequencer's log\" line", func() bool {
		m = followingRe.FindStringSubmatch(restarted.tail(0))
		return m != nil
	})
	head, _ := strconv.ParseUint(m[1], 10, 64)
	fromSeq, _ := strconv.ParseUint(m[2], 10, 64)
	t.Logf("killed at block %d, restarted at head %d, following the log from sequence %d", before, head, fromSeq)
	if head < before || head == 0 || fromSeq <= 1 {
		t.Errorf("restarted replica follows from head %d, log sequence %d; it served block %d before the kill: want it to resume from there, not from genesis", head, fromSeq, before)
	}
	poll(t, testContext(t, 20*time.Second), "the restarted replica caught up", func() bool {
		return strings.Contains(restarted.tail(0), `msg="Replica caught up with the sequencer"`)
	})
	settle(t, 5*time.Second, "the restarted replica's latest", func(c *rpc.Client) (string, error) { return readView(ctx, c, from.addr) }, seq, []*peer{restarted})
	last, err := restarted.eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for number := uint64(1); number <= last; number++ {
		want, ok := blockHash(t, ctx, seq.rpc, number)
		got, ok2 := blockHash(t, ctx, restarted.rpc, number)
		if !ok || !ok2 || got != want {
			t.Fatalf("block %d: the restarted replica has %s (%v), the sequencer %s (%v)", number, got, ok2, want, ok)
		}
	}
	sameReceipts(t, ctx, seq, restarted, hashes)
}

// TestStaleSequencerFenced: two sequencers started from copies of one
// datadir on one log. The log takes one writer: the second to append is
// fenced and stops, saying so, and the other keeps sealing; the log is not
// forked. On one server and on a stream of three replicas, whose
// JetStream reports the conflict with another error code.
func TestStaleSequencerFenced(t *testing.T) {
	tests := []struct {
		name     string
		servers  int
		replicas string
	}{
		{"one NATS server", 1, "1"},
		{"three NATS servers, three stream replicas", 3, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster := startNATSCluster(t, tt.servers)
			args := func(dir, blockTime string) []string {
				return []string{"--dev=false", "--datadir", dir, "--nats.url", cluster.URL(0), "--nats.replicas", tt.replicas,
					"--block-time", blockTime, "--preconf-interval", "100ms", "--preview.examples=false"}
			}
			dirA, dirB := t.TempDir(), t.TempDir()
			first := startNode(t, args(dirA, "200ms")...)
			c, _ := first.dial(t)
			ctx := testContext(t, 60*time.Second)
			poll(t, ctx, "a few blocks", func() bool {
				n, err := c.BlockNumber(ctx)
				return err == nil && n >= 3
			})
			first.stop()
			if err := copyDir(dirA, dirB); err != nil {
				t.Fatal(err)
			}

			// Blocks long enough that both start within the first: a block
			// sealed before the second opens the log would have it refuse
			// the log as ahead of its datadir, not be fenced.
			nodes := []*peer{newPeer(t, "A", startNode(t, args(dirA, "2s")...)), newPeer(t, "B", startNode(t, args(dirB, "2s")...))}
			exited := make(chan int, len(nodes))
			for i, n := range nodes {
				go func() {
					<-n.done
					exited <- i
				}()
			}
			var fenced, survivor *peer
			select {
			case i := <-exited:
				fenced, survivor = nodes[i], nodes[1-i]
			case <-time.After(15 * time.Second):
				t.Fatalf("neither sequencer stopped within 15s of both starting on one log:\nA:\n%s\nB:\n%s", nodes[0].tail(20), nodes[1].tail(20))
			}
			if err := fenced.wait(time.Second); err == nil || !strings.Contains(fenced.tail(0), "(fenced)") {
				t.Fatalf("%s exited with %v; want an error that says it was fenced. log:\n%s", fenced.name, err, fenced.tail(20))
			}
			t.Logf("%s fenced: %s", fenced.name, fenced.tail(1))
			head, err := survivor.eth.BlockNumber(ctx)
			if err != nil {
				t.Fatal(err)
			}
			poll(t, ctx, survivor.name+" sealing two more blocks", func() bool {
				n, err := survivor.eth.BlockNumber(ctx)
				return err == nil && n >= head+2
			})
			if survivor.exited() {
				t.Fatalf("both sequencers stopped; %s: %v\n%s", survivor.name, survivor.err, survivor.tail(20))
			}
			// The log holds the survivor's chain and no other: a replica
			// from genesis replays it to the survivor's head.
			replica := newPeer(t, "replica", startNode(t, "--follow", "--nats.url", cluster.URL(0), "--preview.examples=false"))
			settle(t, 20*time.Second, "a replica of the surviving sequencer", func(c *rpc.Client) (string, error) {
				return readView(ctx, c, common.Address{})
			}, survivor, []*peer{replica})
		})
	}
}

// TestPromisesSurviveRepeatedKills: kill -9 of a sequencer, three times in
// a row, each time with transfers pre-confirmed in pending and others
// accepted but not yet pre-confirmed. After each restart pending holds all
// of them at once, the pre-confirmed ones first in their order; all are
// sealed once, and the balances are what the transfers make them.
func TestPromisesSurviveRepeatedKills(t *testing.T) {
	dir := t.TempDir()
	// One tick per block, at its opening (no eager pre-confirmation, an
	// interval equal to the block time): a transfer sent during block N
	// is pre-confirmed when N+1 opens and stays in pending for the whole
	// 3 s block, and one sent after that stays accepted only. The kill
	// falls in between by construction, not by a race against a timer.
	args := []string{"--dev=false", "--datadir", dir, "--block-time", "3s", "--preconf-interval", "3s", "--preconf-min-gap", "0", "--preview.examples=false"}
	accounts := devAccounts(t, 2)
	ctx := testContext(t, 120*time.Second)
	n := newPeer(t, "sequencer", startNode(t, args...))
	initial := map[common.Address]*big.Int{}
	nonces := map[common.Address]uint64{}
	for _, a := range accounts {
		b, err := n.eth.BalanceAt(ctx, a.addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		initial[a.addr] = b
	}
	var sent []*types.Transaction
	send := func(k int) []*types.Transaction {
		var txs []*types.Transaction
		for range k {
			for _, a := range accounts {
				tx := signTransfer(a, nonces[a.addr], freshAddress(t), big.NewInt(int64(1000+len(sent))))
				if err := sendRaw(ctx, n.rpc, tx); err != nil {
					t.Fatal(err)
				}
				nonces[a.addr]++
				sent = append(sent, tx)
				txs = append(txs, tx)
			}
		}
		return txs
	}

	for round := 1; round <= 3; round++ {
		// Until the sequencer opens its first block, pending is the head
		// itself: a transfer sent then would go into the block opened
		// next, at its first tick, and be sealed in it, not be pending
		// at the kill.
		poll(t, testContext(t, 10*time.Second), fmt.Sprintf("round %d: a block open", round), func() bool {
			p := readPending(t, ctx, n.rpc)
			head, err := n.eth.BlockNumber(ctx)
			return err == nil && uint64(p.Number) == head+1
		})
		preconfirmed := send(3)
		var before pendingBlock
		poll(t, testContext(t, 10*time.Second), fmt.Sprintf("round %d: the first transfers pre-confirmed", round), func() bool {
			before = readPending(t, ctx, n.rpc)
			return containsAll(before.Transactions, preconfirmed)
		})
		accepted := send(2)
		// What the sequencer promised when it is killed: the transfers
		// pre-confirmed, and the later ones not (yet).
		before = readPending(t, ctx, n.rpc)
		n.kill()
		if !containsAll(before.Transactions, preconfirmed) || containsAny(before.Transactions, accepted) {
			t.Fatalf("round %d: pending at the kill holds %v; want the first transfers pre-confirmed and the last ones only accepted", round, before.Transactions)
		}

		n = newPeer(t, "sequencer", startNode(t, args...))
		var after pendingBlock
		all := append(slices.Clone(preconfirmed), accepted...)
		deadline := time.Now().Add(2 * time.Second)
		for after = readPending(t, ctx, n.rpc); !containsAll(after.Transactions, all); after = readPending(t, ctx, n.rpc) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: 2s after the restart, pending is block %d %v; want all of %v (the first %d pre-confirmed before the kill)",
					round, after.Number, after.Transactions, hashesOf(all), len(preconfirmed))
			}
			time.Sleep(20 * time.Millisecond)
		}
		if after.Number != before.Number || !slices.Equal(after.Transactions[:len(before.Transactions)], before.Transactions) {
			t.Fatalf("round %d: pending after the restart is block %d %v; before the kill it was block %d %v: the pre-confirmed transfers must come first, in their order, in the same block",
				round, after.Number, after.Transactions, before.Number, before.Transactions)
		}
		for _, tx := range all {
			waitSealed(t, ctx, n.eth, tx.Hash())
		}
	}

	// Each transfer sealed once, each sender's nonces in order without a
	// gap, and the balances the transfers make.
	head, err := n.eth.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[common.Hash]uint64{}
	next := map[common.Address]uint64{}
	signer := types.LatestSignerForChainID(big.NewInt(chainID))
	for number := uint64(1); number <= head; number++ {
		block, err := n.eth.BlockByNumber(ctx, new(big.Int).SetUint64(number))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			if at, dup := seen[tx.Hash()]; dup {
				t.Errorf("transaction %s sealed twice, in blocks %d and %d", tx.Hash(), at, number)
			}
			seen[tx.Hash()] = number
			from, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			if tx.Nonce() != next[from] {
				t.Errorf("block %d: %s's nonce %d follows %d", number, from, tx.Nonce(), next[from])
			}
			next[from] = tx.Nonce() + 1
		}
	}
	var hashes []common.Hash
	for _, tx := range sent {
		if _, ok := seen[tx.Hash()]; !ok {
			t.Errorf("transfer %s (nonce %d) answered with its hash, never sealed", tx.Hash(), tx.Nonce())
		}
		hashes = append(hashes, tx.Hash())
	}
	receipts := waitAllSealed(t, ctx, n, hashes)
	want := map[common.Address]*big.Int{}
	for addr, b := range initial {
		want[addr] = new(big.Int).Set(b)
	}
	for _, tx := range sent {
		from, _ := types.Sender(signer, tx)
		r := receipts[tx.Hash()]
		want[from].Sub(want[from], new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice))
		want[from].Sub(want[from], tx.Value())
		want[*tx.To()] = tx.Value()
	}
	for addr, w := range want {
		got, err := n.eth.BalanceAt(ctx, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Cmp(w) != 0 {
			t.Errorf("balance of %s is %s, the transfers make it %s", addr, got, w)
		}
	}
}

// copyDir copies a stopped node's datadir, as an operator would with cp -r.
func copyDir(src, dst string) error {
	out, err := exec.Command("cp", "-a", src+"/.", dst).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cp -a %s/. %s: %v: %s", src, dst, err, out)
	}
	return nil
}

// peer is a running node and its clients.
type peer struct {
	*node
	name string
	eth  *ethclient.Client
	rpc  *rpc.Client
}

func newPeer(t testing.TB, name string, n *node) *peer {
	t.Helper()
	eth, rc := n.dial(t)
	return &peer{node: n, name: name, eth: eth, rpc: rc}
}

// exited reports whether the node's process has ended.
func (n *node) exited() bool {
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

type healthJSON struct {
	Head    uint64 `json:"head"`
	Role    string `json:"role"`
	Replica *struct {
		BehindEntries uint64  `json:"behindEntries"`
		LagSeconds    float64 `json:"lagSeconds"`
	} `json:"replica"`
}

func (n *node) health(t testing.TB) healthJSON {
	t.Helper()
	resp, err := http.Get(n.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h healthJSON
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// devAccounts are the first k development accounts, funded by the
// preview genesis as by --dev.
func devAccounts(t testing.TB, k int) []account {
	t.Helper()
	keys, err := chain.DevKeys(k)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]account, k)
	for i, key := range keys {
		out[i] = account{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	}
	return out
}

// signTransfer is a plain transfer that any of the tests' blocks can pay.
func signTransfer(from account, nonce uint64, to common.Address, value *big.Int) *types.Transaction {
	return signTx1559(from, nonce, to, value, params.TxGas, big.NewInt(100*params.GWei))
}

// signTx1559 signs a dynamic-fee transfer; it is called from the tests'
// sending goroutines too, where t.Fatal may not be: signing with a valid
// key cannot fail.
func signTx1559(from account, nonce uint64, to common.Address, value *big.Int, gas uint64, feeCap *big.Int) *types.Transaction {
	tip := big.NewInt(params.GWei)
	if tip.Cmp(feeCap) > 0 {
		tip = feeCap
	}
	tx, err := types.SignNewTx(from.key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value,
	})
	if err != nil {
		panic(err)
	}
	return tx
}

// sendRaw sends tx with eth_sendRawTransaction and checks the hash it is
// answered with.
func sendRaw(ctx context.Context, c *rpc.Client, tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	var hash common.Hash
	if err := c.CallContext(ctx, &hash, "eth_sendRawTransaction", hexutil.Encode(raw)); err != nil {
		return err
	}
	if hash != tx.Hash() {
		return fmt.Errorf("eth_sendRawTransaction answered %s for transaction %s", hash, tx.Hash())
	}
	return nil
}

// rpcErrorText is a JSON-RPC error as a client reads it: code and message.
func rpcErrorText(err error) string {
	var rerr rpc.Error
	if errors.As(err, &rerr) {
		return fmt.Sprintf("%d %q", rerr.ErrorCode(), rerr.Error())
	}
	return fmt.Sprintf("%q", err)
}

// blockHash is the hash a node reports for its block of that number; ok is
// false while it has none.
func blockHash(t testing.TB, ctx context.Context, c *rpc.Client, number uint64) (common.Hash, bool) {
	t.Helper()
	var b *struct {
		Hash common.Hash `json:"hash"`
	}
	if err := c.CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.EncodeUint64(number), false); err != nil {
		t.Fatalf("eth_getBlockByNumber(%d): %v", number, err)
	}
	if b == nil {
		return common.Hash{}, false
	}
	return b.Hash, true
}

// readView is what a node serves at one moment, as JSON: its latest and
// pending blocks (with transaction hashes) and addr's balance and nonce at
// pending. One batch, so the reads are as close together as they get.
func readView(ctx context.Context, c *rpc.Client, addr common.Address) (string, error) {
	var latest, pending, balance, nonce json.RawMessage
	batch := []rpc.BatchElem{
		{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: &latest},
		{Method: "eth_getBlockByNumber", Args: []any{"pending", false}, Result: &pending},
		{Method: "eth_getBalance", Args: []any{addr, "pending"}, Result: &balance},
		{Method: "eth_getTransactionCount", Args: []any{addr, "pending"}, Result: &nonce},
	}
	if err := c.BatchCallContext(ctx, batch); err != nil {
		return "", err
	}
	for _, e := range batch {
		if e.Error != nil {
			return "", fmt.Errorf("%s: %w", e.Method, e.Error)
		}
	}
	return fmt.Sprintf("latest %s\npending %s\npending balance %s, nonce %s", latest, pending, balance, nonce), nil
}

// settle polls until every replica serves what the sequencer serves.
// Reads of the sequencer before and after each replica's read bracket it:
// when both are the same, the sequencer served that the whole time, and a
// replica a few milliseconds behind must serve it too.
func settle(t testing.TB, within time.Duration, what string, read func(*rpc.Client) (string, error), seq *peer, replicas []*peer) {
	t.Helper()
	deadline := time.Now().Add(within)
	must := func(p *peer) string {
		v, err := read(p.rpc)
		if err != nil {
			t.Fatalf("%s: read %s: %v", what, p.name, err)
		}
		return v
	}
	pending := slices.Clone(replicas)
	var diff string
	for {
		var still []*peer
		for _, r := range pending {
			before := must(seq)
			got := must(r)
			after := must(seq)
			switch {
			case before != after:
				still, diff = append(still, r), "the sequencer's view changed during every read"
			case got != before:
				still, diff = append(still, r), fmt.Sprintf("%s serves\n%s\nthe sequencer\n%s", r.name, got, before)
			}
		}
		if pending = still; len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not the same within %v: %s", what, within, diff)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sameReceipts checks that p reports every receipt of hashes as ref does.
func sameReceipts(t testing.TB, ctx context.Context, ref, p *peer, hashes []common.Hash) {
	t.Helper()
	if ref == p {
		return
	}
	want, got := rawReceipts(t, ctx, ref.rpc, hashes), rawReceipts(t, ctx, p.rpc, hashes)
	for i, h := range hashes {
		if string(want[i]) != string(got[i]) {
			t.Fatalf("receipt of %s: %s reports\n%s\n%s\n%s", h, p.name, got[i], ref.name, want[i])
		}
	}
}

func rawReceipts(t testing.TB, ctx context.Context, c *rpc.Client, hashes []common.Hash) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(hashes))
	for start := 0; start < len(hashes); start += 100 {
		end := min(start+100, len(hashes))
		batch := make([]rpc.BatchElem, end-start)
		for i := range batch {
			batch[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{hashes[start+i]}, Result: &out[start+i]}
		}
		if err := c.BatchCallContext(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for _, e := range batch {
			if e.Error != nil {
				t.Fatalf("%s%v: %v", e.Method, e.Args, e.Error)
			}
		}
	}
	return out
}

// waitAllSealed polls until every transaction of hashes has a receipt in a
// sealed block of p, and returns the receipts.
func waitAllSealed(t testing.TB, ctx context.Context, p *peer, hashes []common.Hash) map[common.Hash]*types.Receipt {
	t.Helper()
	out := map[common.Hash]*types.Receipt{}
	var missing int
	poll(t, ctx, fmt.Sprintf("%d transactions sealed on %s", len(hashes), p.name), func() bool {
		head, err := p.eth.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		raws := rawReceipts(t, ctx, p.rpc, hashes)
		missing = 0
		for i, raw := range raws {
			var r *types.Receipt
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if r == nil || r.BlockNumber.Uint64() > head {
				missing++
				continue
			}
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("transaction %s failed: %s", hashes[i], raw)
			}
			out[hashes[i]] = r
		}
		return missing == 0
	})
	return out
}

// traffic sends transfers from one account through the nodes in turn
// until stopped.
type traffic struct {
	stopc  chan struct{}
	done   chan struct{}
	hashes []common.Hash
	err    error
}

func startTraffic(t testing.TB, ctx context.Context, via []*peer, from account, every time.Duration) *traffic {
	t.Helper()
	nonce, err := via[0].eth.PendingNonceAt(ctx, from.addr)
	if err != nil {
		t.Fatal(err)
	}
	tr := &traffic{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(tr.done)
		for k := 0; ; k++ {
			select {
			case <-tr.stopc:
				return
			case <-time.After(every):
			}
			var to common.Address
			rand.Read(to[:]) // an address nobody uses; freshAddress may not t.Fatal here
			tx := signTransfer(from, nonce, to, big.NewInt(int64(1+k)))
			p := via[k%len(via)]
			if err := sendRaw(ctx, p.rpc, tx); err != nil {
				tr.err = fmt.Errorf("transfer %d through %s: %w", k, p.name, err)
				return
			}
			nonce++
			tr.hashes = append(tr.hashes, tx.Hash())
		}
	}()
	return tr
}

// stop ends the traffic and returns the hashes of what it sent.
func (tr *traffic) stop(t testing.TB) []common.Hash {
	t.Helper()
	close(tr.stopc)
	<-tr.done
	if tr.err != nil {
		t.Fatal(tr.err)
	}
	return tr.hashes
}

// flashblock is a newFlashblocks notification: a published pending block.
type flashblock struct {
	Number       hexutil.Uint64 `json:"number"`
	Transactions []common.Hash  `json:"transactions"`
}

func watchFlashblocks(t testing.TB, ctx context.Context, p *peer) <-chan flashblock {
	t.Helper()
	_, rc := p.dialWS(t)
	ch := make(chan flashblock, 1024)
	sub, err := rc.EthSubscribe(ctx, ch, "newFlashblocks")
	if err != nil {
		t.Fatalf("%s: eth_subscribe newFlashblocks: %v", p.name, err)
	}
	t.Cleanup(sub.Unsubscribe)
	return ch
}

// waitFlashblock reads the stream until a pending block holds hash.
func waitFlashblock(t testing.TB, ctx context.Context, name string, ch <-chan flashblock, hash common.Hash) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case fb := <-ch:
			if slices.Contains(fb.Transactions, hash) {
				return
			}
		case <-timeout:
			t.Fatalf("%s: %s not in a pending block within 5s", name, hash)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
}

// pendingBlock is the pending block as eth_getBlockByNumber reports it.
type pendingBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	Transactions []common.Hash  `json:"transactions"`
}

func readPending(t testing.TB, ctx context.Context, c *rpc.Client) pendingBlock {
	t.Helper()
	var b pendingBlock
	if err := c.CallContext(ctx, &b, "eth_getBlockByNumber", "pending", false); err != nil {
		t.Fatal(err)
	}
	return b
}

func containsAll(hashes []common.Hash, txs []*types.Transaction) bool {
	for _, tx := range txs {
		if !slices.Contains(hashes, tx.Hash()) {
			return false
		}
	}
	return true
}

func containsAny(hashes []common.Hash, txs []*types.Transaction) bool {
	for _, tx := range txs {
		if slices.Contains(hashes, tx.Hash()) {
			return true
		}
	}
	return false
}

// worstServer makes one NATS server hold the log stream's leader, a
// replica's consumer (a single copy, on one server) and the sequencer's
// connection, and returns it: the server whose loss costs the most, the
// sequencer's appends, its answers to relayed requests and a replica's
// reading all waiting at once for the cluster to recover.
func worstServer(t testing.TB, ctx context.Context, cluster *natsCluster) int {
	t.Helper()
	nc, err := nats.Connect(strings.Join(cluster.URLs, ","))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	name := seqlog.StreamName(chain.PreviewChainID)
	stream, err := js.Stream(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	var host string
	for info := range stream.ListConsumers(ctx).Info() {
		if info.Cluster != nil && cluster.Index(info.Cluster.Leader) >= 0 {
			host = info.Cluster.Leader
		}
	}
	if host == "" {
		t.Fatal("no replica's consumer on the log's stream")
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 {
		t.Fatalf("the log's stream has %d replicas, want 3 (--nats.replicas 3)", info.Config.Replicas)
	}
	var (
		asked   string // the leader last asked to step down
		askedAt time.Time
	)
	poll(t, ctx, "the log's stream led by "+host, func() bool {
		// One answer is bounded: during an election nobody answers.
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		info, err := stream.Info(attempt)
		cancel()
		if err != nil {
			t.Logf("the log's stream: %v", err)
			return false
		}
		leader := info.Cluster.Leader
		switch {
		case leader == host:
			return true
		case leader == "", leader == asked && time.Since(askedAt) < 2*time.Second:
			return false // an election under way
		}
		// JetStream's API has the leader step down to a preferred peer
		// (it refuses while that peer is not current: asked again); the
		// Go client has no call for it.
		asked, askedAt = leader, time.Now()
		req := `{"placement":{"preferred":"` + host + `"}}`
		if reply, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+name, []byte(req)); err != nil {
			t.Logf("stream leader step-down: %v", err)
		} else if !strings.Contains(string(reply.Data), `"success":true`) {
			t.Logf("stream leader step-down: %s", reply.Data)
		}
		return false
	})
	// The sequencer's connection: moved by closing it until it reconnects
	// there (nats.go takes its servers in turn).
	poll(t, ctx, "the sequencer connected to "+host, func() bool {
		i, id, ok := cluster.Client("stocknode sequencer log")
		switch {
		case !ok:
			return false // reconnecting
		case cluster.Name(i) == host:
			return true
		}
		if err := cluster.Disconnect(i, id); err != nil {
			t.Logf("disconnect the sequencer from %s: %v", cluster.Name(i), err)
		}
		return false
	})
	return cluster.Index(host)
}

func hashesOf(txs []*types.Transaction) (out []common.Hash) {
	for _, tx := range txs {
		out = append(out, tx.Hash())
	}
	return out
}
