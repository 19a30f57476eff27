package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/node/ws"
)

type logKey struct {
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	LogIndex    hexutil.Uint64 `json:"logIndex"`
}

// keyOf decodes the fields of a notification that key it (logKey,
// flashKey).
func keyOf[K any](t *testing.T, raw json.RawMessage) K {
	t.Helper()
	var k K
	if err := json.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k logKey) after(o logKey) bool {
	return k.BlockNumber > o.BlockNumber || k.BlockNumber == o.BlockNumber && k.LogIndex > o.LogIndex
}

// A subscriber cut off for 5 s that reconnects naming the last head and
// the last log it got receives every head and every log it missed, once,
// then the live streams, while transactions keep coming.
func TestResumeAfterCutOff(t *testing.T) {
	n := startNode(t, 100*time.Millisecond, ws.DefaultConfig())
	sender := n.dial()
	contract := n.deployLogContract(sender)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(25 * time.Millisecond):
			}
			n.sendTx(sender, 1, &contract, []byte{byte(i)}, 100_000)
		}
	}()

	// What a subscriber that was never cut off gets.
	observer := n.dial()
	observed := observer.subscribe("newFlashblocks")

	first := n.dial()
	headsSub := first.subscribe("newHeads")
	logsSub := first.subscribe("logs", map[string]any{"address": contract})
	flashSub := first.subscribe("newFlashblocks")
	first.waitNotes(logsSub, 5, 10*time.Second)
	first.conn.Close()
	heads := first.waitNotes(headsSub, 1, time.Second)
	logs := first.waitNotes(logsSub, 1, time.Second)
	flashes := first.waitNotes(flashSub, 1, time.Second)
	lastHead, lastLog, lastFlash := number(t, heads[len(heads)-1]), keyOf[logKey](t, logs[len(logs)-1]), keyOf[flashKey](t, flashes[len(flashes)-1])
	time.Sleep(5 * time.Second)

	second := n.dial()
	resumedHeads := second.subscribe("newHeads", map[string]any{"resumeAfter": map[string]any{"number": hexutil.Uint64(lastHead)}})
	resumedLogs := second.subscribe("logs", map[string]any{"address": contract, "resumeAfter": lastLog})
	resumedFlashes := second.subscribe("newFlashblocks", map[string]any{"resumeAfter": lastFlash})
	var reconnected hexutil.Uint64
	result(t, second.call("eth_blockNumber"), &reconnected)
	if missed := uint64(reconnected) - lastHead; missed < 30 {
		t.Fatalf("only %d blocks sealed while cut off", missed)
	}
	// Live for a while, then quiet, so that the last logs are sealed.
	time.Sleep(time.Second)
	close(stop)
	<-stopped
	var end hexutil.Uint64
	result(t, second.call("eth_blockNumber"), &end)
	end += 3
	got := second.waitNotes(resumedHeads, int(uint64(end)-lastHead), 10*time.Second)
	for i, raw := range got {
		want := lastHead + 1 + uint64(i)
		if number(t, raw) != want {
			t.Fatalf("resumed head %d is block %d, want %d (after %d)", i, number(t, raw), want, lastHead)
		}
		var block map[string]any
		result(t, second.call("eth_getBlockByNumber", hexutil.Uint64(want), false), &block)
		if !strings.Contains(string(raw), block["hash"].(string)) {
			t.Fatalf("resumed head %d is not the chain's block", want)
		}
	}

	var all []json.RawMessage
	result(t, second.call("eth_getLogs", map[string]any{"address": contract, "fromBlock": lastLog.BlockNumber, "toBlock": end}), &all)
	var want []json.RawMessage
	for _, l := range all {
		if keyOf[logKey](t, l).after(lastLog) {
			want = append(want, l)
		}
	}
	var gotLogs []json.RawMessage
	for _, l := range second.waitNotes(resumedLogs, len(want), 10*time.Second) {
		if keyOf[logKey](t, l).BlockNumber <= end {
			gotLogs = append(gotLogs, l)
		}
	}
	if len(gotLogs) != len(want) {
		for i, l := range gotLogs {
			if i == 0 || !keyOf[logKey](t, l).after(keyOf[logKey](t, gotLogs[i-1])) {
				t.Logf("resumed log %d: %+v after %+v", i, keyOf[logKey](t, l), keyOf[logKey](t, gotLogs[max(i-1, 0)]))
			}
		}
		t.Fatalf("%d logs after the resume point, eth_getLogs has %d", len(gotLogs), len(want))
	}
	for i := range want {
		if !jsonEqual(gotLogs[i], want[i]) {
			t.Fatalf("resumed log %d differs:\n getLogs %s\n resumed %s", i, want[i], gotLogs[i])
		}
	}

	// Flashblocks: the resumed stream, up to the first of block end, is
	// what the observer got after the resume point, byte for byte.
	upTo := func(notes []json.RawMessage) []json.RawMessage {
		var out []json.RawMessage
		for _, raw := range notes {
			if k := keyOf[flashKey](t, raw); k.after(lastFlash) && k.Number <= end {
				out = append(out, raw)
			}
		}
		return out
	}
	second.waitNotes(resumedFlashes, 1, 10*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		notes := second.waitNotes(resumedFlashes, 1, time.Second)
		if keyOf[flashKey](t, notes[len(notes)-1]).Number > end {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no flashblock of block %d after 10 s", end+1)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantFlashes := upTo(observer.waitNotes(observed, 1, time.Second))
	gotFlashes := second.waitNotes(resumedFlashes, 1, time.Second)
	if first := keyOf[flashKey](t, gotFlashes[0]); !first.after(lastFlash) {
		t.Fatalf("resumed flashblocks start at %+v, not after %+v", first, lastFlash)
	}
	gotFlashes = upTo(gotFlashes)
	if len(gotFlashes) != len(wantFlashes) {
		for _, r := range gotFlashes {
			t.Logf("got %+v", keyOf[flashKey](t, r))
		}
		for _, r := range wantFlashes {
			t.Logf("want %+v", keyOf[flashKey](t, r))
		}
		t.Fatalf("%d flashblocks resumed, a subscriber never cut off got %d", len(gotFlashes), len(wantFlashes))
	}
	for i := range wantFlashes {
		if !jsonEqual(gotFlashes[i], wantFlashes[i]) {
			t.Fatalf("resumed flashblock %d differs:\n live    %s\n resumed %s", i, wantFlashes[i], gotFlashes[i])
		}
	}
	t.Logf("resumed after head %d, log %d/%d and flashblock %d/%d: %d heads, %d logs, %d flashblocks",
		lastHead, lastLog.BlockNumber, lastLog.LogIndex, lastFlash.Number, lastFlash.Index, len(got), len(gotLogs), len(gotFlashes))
}

type flashKey struct {
	Number hexutil.Uint64 `json:"number"`
	Index  hexutil.Uint64 `json:"index"`
}

func (k flashKey) after(o flashKey) bool {
	return k.Number > o.Number || k.Number == o.Number && k.Index > o.Index
}

// Resume points the node cannot serve are refused with what to do.
func TestResumeRefused(t *testing.T) {
	cfg := ws.DefaultConfig()
	cfg.ResumeBlocks = 4
	n := startNode(t, 50*time.Millisecond, cfg)
	c := n.dial()
	c.waitNotes(c.subscribe("newHeads"), 8, 5*time.Second)
	tests := []struct {
		name   string
		params []any
		want   string
	}{
		{"past the head", []any{"newHeads", map[string]any{"resumeAfter": map[string]any{"number": "0xffffff"}}}, "is past the last one announced"},
		{"too far back", []any{"newHeads", map[string]any{"resumeAfter": map[string]any{"number": "0x1"}}}, "resumes at most 4 blocks back (--ws.resume.blocks)"},
		{"heads named as logs", []any{"newHeads", map[string]any{"resumeAfter": map[string]any{"blockNumber": "0x1"}}}, `resumes after a head: {\"number\"`},
		{"logs named as heads", []any{"logs", map[string]any{"resumeAfter": map[string]any{"number": "0x1"}}}, `resumes after a log`},
		{"not a quantity", []any{"newHeads", map[string]any{"resumeAfter": map[string]any{"number": "ten"}}}, "invalid argument 1"},
		{"flashblock without its index", []any{"newFlashblocks", map[string]any{"resumeAfter": map[string]any{"number": "0x1"}}}, `resumes after a flashblock: {\"number\"`},
		{"flashblock too far back", []any{"newFlashblocks", map[string]any{"resumeAfter": map[string]any{"number": "0x1", "index": "0x0"}}}, "resumes at most 4 blocks back"},
		{"a kind that does not resume", []any{"newPendingTransactions", map[string]any{"resumeAfter": map[string]any{"number": "0x1"}}}, "invalid argument 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if resp := string(c.call("eth_subscribe", tt.params...)); !strings.Contains(resp, tt.want) {
				t.Fatalf("eth_subscribe %v: %s, want an error saying %q", tt.params, resp, tt.want)
			}
		})
	}
}
