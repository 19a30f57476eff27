package abuse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/loadtest/rpcclient"
)

// The memory attacks: requests whose answers (or whose state on the node)
// grow without a bound. Their answers are streamed and counted, never
// held: the load generator must not be the one that runs out of memory.

// streamed is one request whose answer was read to its end and dropped.
type streamed struct {
	status int
	size   int64
	head   []byte // the answer's first bytes
	count  int    // occurrences of the counted marker
	took   time.Duration
	err    error
}

// streamPost posts body and reads the answer to its end, counting marker.
func streamPost(ctx context.Context, client *http.Client, url string, body, marker []byte) streamed {
	t0 := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return streamed{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return streamed{err: err, took: time.Since(t0)}
	}
	defer resp.Body.Close()
	w := &countingWriter{marker: marker}
	_, err = io.Copy(w, resp.Body)
	return streamed{status: resp.StatusCode, size: w.n, head: w.head, count: w.count, took: time.Since(t0), err: err}
}

// countingWriter counts bytes and occurrences of marker (across writes)
// and keeps the first bytes.
type countingWriter struct {
	marker []byte
	n      int64
	count  int
	head   []byte
	tail   []byte // the last len(marker)-1 bytes seen
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if len(w.head) < 512 {
		w.head = append(w.head, p[:min(len(p), 512-len(w.head))]...)
	}
	if len(w.marker) == 0 {
		return len(p), nil
	}
	// A marker split across writes is found in the joined edge.
	edge := append(w.tail, p[:min(len(p), len(w.marker)-1)]...)
	w.count += bytes.Count(edge, w.marker)
	w.count += bytes.Count(p, w.marker)
	keep := len(w.marker) - 1
	if len(p) >= keep {
		w.tail = append(w.tail[:0], p[len(p)-keep:]...)
	} else {
		w.tail = append(w.tail, p...)
		w.tail = w.tail[max(0, len(w.tail)-keep):]
	}
	return len(p), nil
}

// repeatStreams runs n workers that post body back to back until the
// duration is over (each at least once), each request within
// -request-timeout.
func (b *battery) repeatStreams(ctx context.Context, n int, body, marker []byte) []streamed {
	var all []streamed
	for _, rs := range b.repeatEach(ctx, slices.Repeat([][]byte{body}, n), marker) {
		all = append(all, rs...)
	}
	return all
}

// repeatEach runs a worker per body, as repeatStreams, and returns each
// one's requests.
func (b *battery) repeatEach(ctx context.Context, bodies [][]byte, marker []byte) [][]streamed {
	client := b.attackerHTTP(len(bodies))
	defer client.CloseIdleConnections()
	end := time.Now().Add(b.cfg.Duration)
	results := make([][]streamed, len(bodies))
	var wg sync.WaitGroup
	for w, body := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := true; first || time.Now().Before(end) && ctx.Err() == nil; first = false {
				rctx, cancel := context.WithTimeout(ctx, b.cfg.RequestTimeout)
				results[w] = append(results[w], streamPost(rctx, client, b.cfg.URL, body, marker))
				cancel()
			}
		}()
	}
	wg.Wait()
	return results
}

// describeStreams sums the requests up: counts, sizes, errors, latency.
func describeStreams(rs []streamed, what string) string {
	var (
		ok, failed int
		maxSize    int64
		maxCount   int
		firstErr   string
		took       []time.Duration
	)
	for _, r := range rs {
		took = append(took, r.took)
		msg, rpcErr := rpcErrorMessage(r.head)
		switch {
		case r.err != nil:
			failed++
			if firstErr == "" {
				firstErr = r.err.Error()
			}
		case r.status != http.StatusOK:
			failed++
			if firstErr == "" {
				firstErr = fmt.Sprintf("HTTP %d: %.100s", r.status, r.head)
			}
		case rpcErr && r.size < 4096: // an error answer, not a result that mentions "error"
			failed++
			if firstErr == "" {
				firstErr = msg
			}
		default:
			ok++
			maxSize = max(maxSize, r.size)
			maxCount = max(maxCount, r.count)
		}
	}
	lat := latency.Summarize(took)
	line := fmt.Sprintf("%d requests: %d answered in full (largest %s", len(rs), ok, byteSize(maxSize))
	if what != "" {
		line += fmt.Sprintf(", %d %s", maxCount, what)
	}
	line += fmt.Sprintf("), %d refused or failed; latency p50 %s, max %s", failed, fmtDur(lat.P50), fmtDur(lat.Max))
	if firstErr != "" {
		line += "; first failure: " + firstErr
	}
	return line
}

// feeHistory asks for -fee-history-percentiles reward percentiles of
// -fee-history-blocks blocks, -fee-history-requests at once.
func (b *battery) feeHistory(ctx context.Context) outcome {
	var out outcome
	body := feeHistoryBody(b.cfg.FeeHistoryBlocks, b.cfg.FeeHistoryPercentiles)
	rs := b.repeatStreams(ctx, b.cfg.FeeHistoryRequests, body, nil)
	out.detailf("eth_feeHistory of %d blocks with %d percentiles (%s request), %d at once for %v: %s",
		b.cfg.FeeHistoryBlocks, b.cfg.FeeHistoryPercentiles, byteSize(int64(len(body))), b.cfg.FeeHistoryRequests, b.cfg.Duration, describeStreams(rs, ""))
	return out
}

// feeHistoryBody has n reward percentiles, strictly increasing up to 100
// (as eth_feeHistory requires), with as few decimals as keep them apart.
func feeHistoryBody(blocks, n int) []byte {
	decimals := max(1, int(math.Ceil(math.Log10(float64(n)/100)))+1)
	b := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":["`)
	b = append(b, hexutil.EncodeUint64(uint64(blocks))...)
	b = append(b, `","latest",[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(i+1)*100/float64(n), 'f', decimals, 64)
	}
	return append(b, "]]}"...)
}

// prepareGetLogs puts -logs logs on chain (once per battery run) and
// returns the attack: -logs-requests eth_getLogs over all of them at once.
func (b *battery) prepareGetLogs(ctx context.Context) (func(context.Context) outcome, error) {
	if b.logs == nil || b.logs.logs < b.cfg.Logs {
		set, err := b.emitLogs(ctx, b.cfg.Logs)
		if err != nil {
			return nil, err
		}
		b.logs = set
	}
	set := *b.logs
	return func(ctx context.Context) outcome {
		var out outcome
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_getLogs", "params": []any{map[string]any{
			"fromBlock": hexutil.Uint64(set.from), "toBlock": hexutil.Uint64(set.to), "address": set.address}}})
		if err != nil {
			out.err = err
			return out
		}
		out.detailf("setup: %d logs of %s in blocks %d-%d, emitted in %s", set.logs, set.address, set.from, set.to, fmtDur(set.setup))
		rs := b.repeatStreams(ctx, b.cfg.LogsRequests, body, []byte(`"logIndex"`))
		out.detailf("eth_getLogs over all of them, %d at once for %v: %s", b.cfg.LogsRequests, b.cfg.Duration, describeStreams(rs, "logs"))
		return out
	}, nil
}

// manyFilters installs -filters log filters of -filter-addresses addresses
// and 4 topic positions of -filter-topics topics each, holds them a few
// seconds while the node's memory is watched, then uninstalls them (left
// in place they would weigh on the next attacks until they expire).
func (b *battery) manyFilters(ctx context.Context) outcome {
	var out outcome
	rpc, err := b.attackerRPC(4)
	if err != nil {
		out.err = err
		return out
	}
	defer rpc.HTTP.CloseIdleConnections()
	tmpl := newFilterTemplate(b.cfg.FilterAddresses, b.cfg.FilterTopics)
	ids := make([]string, 0, b.cfg.Filters)
	var (
		mu       sync.Mutex
		refused  int
		firstErr string
		wg       sync.WaitGroup
		next     = make(chan int)
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body []byte
			for i := range next {
				body = tmpl.body(body[:0], i)
				status, resp, err := b.doAttack(ctx, rpc, body)
				var id string
				if err == nil && status == http.StatusOK {
					var env rpcclient.Envelope
					if json.Unmarshal(resp, &env) == nil && env.Error == nil {
						err = json.Unmarshal(env.Result, &id)
					} else if env.Error != nil {
						err = env.Error
					}
				} else if err == nil {
					err = fmt.Errorf("HTTP %d: %.100s", status, resp)
				}
				mu.Lock()
				if err != nil || id == "" {
					refused++
					if firstErr == "" && err != nil {
						firstErr = err.Error()
					}
				} else {
					ids = append(ids, id)
				}
				mu.Unlock()
			}
		}()
	}
	started := time.Now()
feed:
	for i := range b.cfg.Filters {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	out.detailf("eth_newFilter ×%d (%d addresses and 4×%d topics each, %s a request): %d installed, %d refused in %s",
		b.cfg.Filters, b.cfg.FilterAddresses, b.cfg.FilterTopics, byteSize(int64(len(tmpl.body(nil, 0)))), len(ids), refused, fmtDur(time.Since(started)))
	if firstErr != "" {
		out.detailf("first refusal: %.200s", firstErr)
	}
	sleepCtx(ctx, min(5*time.Second, b.cfg.Duration))
	removed, err := uninstallFilters(rpc, ids)
	out.detailf("uninstalled %d of them afterwards", removed)
	if err != nil {
		out.detailf("uninstalling: %v", err)
	}
	return out
}

// filterTemplate is one large filter's request, made once; body varies
// its first address per filter.
type filterTemplate struct {
	head, tail []byte
}

func newFilterTemplate(addresses, topics int) filterTemplate {
	var rest bytes.Buffer
	for i := 1; i < addresses; i++ {
		fmt.Fprintf(&rest, `,"%s"`, common.BigToAddress(big.NewInt(int64(i))).Hex())
	}
	rest.WriteString(`],"topics":[`)
	for pos := range 4 {
		if pos > 0 {
			rest.WriteByte(',')
		}
		rest.WriteByte('[')
		for j := range topics {
			if j > 0 {
				rest.WriteByte(',')
			}
			fmt.Fprintf(&rest, `"%s"`, common.BigToHash(big.NewInt(int64(pos)<<32|int64(j))).Hex())
		}
		rest.WriteByte(']')
	}
	rest.WriteString(`]}]}`)
	return filterTemplate{head: []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_newFilter","params":[{"fromBlock":"latest","address":[`), tail: rest.Bytes()}
}

func (t filterTemplate) body(dst []byte, i int) []byte {
	dst = append(dst, t.head...)
	dst = append(dst, '"')
	dst = append(dst, common.BigToAddress(big.NewInt(int64(1<<40+i))).Hex()...)
	dst = append(dst, '"')
	return append(dst, t.tail...)
}

// uninstallFilters removes filters in batches; it returns how many the
// node had.
func uninstallFilters(rpc *rpcclient.Client, ids []string) (int, error) {
	removed := 0
	for lo := 0; lo < len(ids); lo += 100 {
		var calls []*rpcclient.BatchCall
		results := make([]bool, min(len(ids), lo+100)-lo)
		for i, id := range ids[lo : lo+len(results)] {
			calls = append(calls, &rpcclient.BatchCall{Method: "eth_uninstallFilter", Params: []any{id}, Result: &results[i]})
		}
		if err := rpc.Batch(calls); err != nil {
			return removed, err
		}
		for i, c := range calls {
			if c.Err == nil && results[i] {
				removed++
			}
		}
	}
	return removed, nil
}
