// Package wsload is loadtest's WebSocket modes: ws-fanout (thousands of
// newHeads subscribers, and how far apart each head reached them) and
// ws-logs (log subscribers, and how long after the send each log arrived).
package wsload

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stocknode/stocknode/internal/latency"
	"github.com/stocknode/stocknode/internal/procstat"
	"github.com/stocknode/stocknode/loadtest/target"
	"github.com/stocknode/stocknode/loadtest/wsprobe"
)

// FanoutConfig is a newHeads fan-out: the endpoint, the subscribers and how
// long they listen (FanoutFlags gives the defaults).
type FanoutConfig struct {
	URL      string
	N        int
	Duration time.Duration
	PID      int
	Dialers  int
	Kind     string
	Readers  int
	Poll     time.Duration
	// HeadsFile, when set, receives one CSV line per measured head.
	HeadsFile string
	// params overrides the eth_subscribe params (raw JSON array).
	params string
}

// FanoutFlags registers the ws-fanout mode's flags on fs and returns the
// FanoutConfig they fill.
func FanoutFlags(fs *flag.FlagSet) *FanoutConfig {
	c := new(FanoutConfig)
	fs.StringVar(&c.URL, "url", "ws://127.0.0.1:8545/ws", "WebSocket endpoint")
	fs.IntVar(&c.N, "n", 10_000, "subscribers (one connection each)")
	fs.DurationVar(&c.Duration, "duration", 20*time.Second, "measurement window once everyone is subscribed")
	fs.IntVar(&c.PID, "pid", 0, "server process id, to report its memory per subscriber")
	fs.IntVar(&c.Dialers, "dialers", 128, "connections opened concurrently")
	fs.StringVar(&c.Kind, "kind", "newHeads", "subscription kind")
	fs.IntVar(&c.Readers, "readers", 1, "probe threads reading the subscribers (each an epoll loop)")
	fs.DurationVar(&c.Poll, "poll", 0, "with a duration, the probe threads never sleep in epoll_wait: they poll, and sleep this long when nothing is ready, so that a server's send finds no thread to wake (on loopback the sender pays the receiver's wake-up; a subscriber on another machine wakes on its own CPU)")
	fs.StringVar(&c.HeadsFile, "heads", "", "write one CSV line per measured head (number, first arrival in Unix ns, arrival spread and read spread in µs), to line slow heads up with what the server did then")
	return c
}

// FanoutReport is how the subscribers received each head: delivery spread,
// misses, and the server's memory.
type FanoutReport struct {
	URL          string `json:"url"`
	Subscribers  int    `json:"subscribers"`
	Connected    int    `json:"connected"`
	DialFailures int    `json:"dialFailures"`
	DialError    string `json:"firstDialError,omitempty"`
	Dropped      int    `json:"droppedDuringWindow"`
	Heads        int    `json:"heads"`
	Undelivered  int    `json:"headsNotDeliveredToAll"`
	// Spread is per head the last minus the first arrival at the
	// subscribers' sockets; ReadSpread the same for when the probe read it.
	Spread           latency.Durations `json:"spread"`
	ReadSpread       latency.Durations `json:"readSpread"`
	ServerRSSBefore  int64             `json:"serverRssBefore,omitempty"`
	ServerRSSAfter   int64             `json:"serverRssAfter,omitempty"`
	BytesPerSubscrib int64             `json:"serverBytesPerSubscriber,omitempty"`
}

func (r FanoutReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ws-fanout %s: %d/%d subscribers connected (%d dial failures, %d dropped in window)\n", r.URL, r.Connected, r.Subscribers, r.DialFailures, r.Dropped)
	if r.DialError != "" {
		fmt.Fprintf(&b, "first dial failure: %s\n", r.DialError)
	}
	fmt.Fprintf(&b, "heads measured %d, not delivered to every subscriber %d\n", r.Heads, r.Undelivered)
	fmt.Fprintf(&b, "spread (last minus first arrival of a head at the subscribers' sockets): %v\n", r.Spread)
	fmt.Fprintf(&b, "read spread (the same, by when the probe read it): %v\n", r.ReadSpread)
	if r.ServerRSSAfter > 0 {
		fmt.Fprintf(&b, "server memory: %.1f MiB before, %.1f MiB with subscribers: %.1f KiB per subscriber\n",
			float64(r.ServerRSSBefore)/(1<<20), float64(r.ServerRSSAfter)/(1<<20), float64(r.BytesPerSubscrib)/1024)
	}
	return b.String()
}

// arrival is one head seen by one subscriber: when it reached the
// subscriber's socket (the kernel's timestamp) and when the probe read it.
type arrival struct {
	number        uint64
	arrived, read time.Time
}

// subscriber is one connection's record of what it received.
type subscriber struct {
	conn     *wsprobe.Conn
	arrivals []arrival
	closed   atomic.Bool
}

// RunFanout opens cfg's subscribers, listens for cfg.Duration and reports
// the delivery of every head.
func RunFanout(ctx context.Context, cfg FanoutConfig) (FanoutReport, error) {
	report := FanoutReport{URL: cfg.URL, Subscribers: cfg.N}
	if err := target.CheckLoopback(cfg.URL); err != nil {
		return report, err
	}
	if cfg.PID > 0 {
		report.ServerRSSBefore, _ = procstat.RSS(cfg.PID)
	}
	subs, failures, dialErr := dialAll(ctx, cfg)
	report.DialFailures = failures
	if dialErr != nil {
		report.DialError = dialErr.Error()
	}
	report.Connected = len(subs)
	defer closeAll(subs)
	var recording atomic.Bool
	loops, err := wsprobe.NewLoops(cfg.Readers, cfg.Poll)
	if err != nil {
		return report, err
	}
	for i, s := range subs {
		// Room for every head of the window: no growth while measuring.
		s.arrivals = make([]arrival, 0, int(cfg.Duration/(100*time.Millisecond))+16)
		if err := loops.Add(i, s.conn, s.recorder(&recording), s.dropped(&recording)); err != nil {
			loops.Close()
			return report, err
		}
	}
	loops.Start()
	time.Sleep(2 * time.Second) // let the server settle with every subscriber idle
	if cfg.PID > 0 {
		report.ServerRSSAfter, _ = procstat.RSS(cfg.PID)
		if len(subs) > 0 {
			report.BytesPerSubscrib = (report.ServerRSSAfter - report.ServerRSSBefore) / int64(len(subs))
		}
	}
	start := time.Now()
	recording.Store(true)
	select {
	case <-time.After(cfg.Duration):
	case <-ctx.Done():
	}
	recording.Store(false)
	end := time.Now()
	loops.Close()
	for _, s := range subs {
		if s.closed.Load() {
			report.Dropped++
		}
	}
	from, to := start.Add(time.Second), end.Add(-time.Second)
	arrived := headSpans(subs, from, to, arrival.arrivedAt)
	read := headSpans(subs, from, to, arrival.readAt)
	report.Heads, report.Undelivered, report.Spread = spreads(arrived, len(subs))
	_, _, report.ReadSpread = spreads(read, len(subs))
	if cfg.HeadsFile != "" {
		return report, writeHeads(cfg.HeadsFile, arrived, read)
	}
	return report, nil
}

// dialAll opens cfg.N subscribed connections, cfg.Dialers at a time; it
// counts the failures and keeps the first one's error.
func dialAll(ctx context.Context, cfg FanoutConfig) (subs []*subscriber, failures int, firstErr error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next atomic.Int64
	)
	params := cfg.params
	if params == "" {
		params = `["` + cfg.Kind + `"]`
	}
	request := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":` + params + `}`)
	for w := 0; w < cfg.Dialers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(cfg.N) && ctx.Err() == nil {
				s, err := subscribe(cfg.URL, request)
				mu.Lock()
				if err != nil {
					failures++
					if firstErr == nil {
						firstErr = err
					}
				} else {
					subs = append(subs, s)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return subs, failures, firstErr
}

func subscribe(url string, request []byte) (*subscriber, error) {
	conn, err := wsprobe.Dial(url, 10*time.Second)
	if err != nil {
		return nil, err
	}
	if err := conn.Subscribe(request); err != nil {
		conn.Close()
		return nil, err
	}
	return &subscriber{conn: conn}, nil
}

var numberKey = []byte(`"number":"0x`)

// recorder records the block number, arrival and read time of each
// notification while recording is on.
func (s *subscriber) recorder(recording *atomic.Bool) func([]byte, time.Time) {
	return func(msg []byte, arrived time.Time) {
		if !recording.Load() {
			return
		}
		if n, ok := parseNumber(msg); ok {
			s.arrivals = append(s.arrivals, arrival{number: n, arrived: arrived, read: time.Now()})
		}
	}
}

// dropped marks the subscriber as dropped when its connection ends while
// recording.
func (s *subscriber) dropped(recording *atomic.Bool) func(error) {
	return func(error) {
		if recording.Load() {
			s.closed.Store(true)
		}
	}
}

func closeAll(subs []*subscriber) {
	for _, s := range subs {
		s.conn.Close()
	}
}

func parseNumber(msg []byte) (uint64, bool) {
	i := bytes.Index(msg, numberKey)
	if i < 0 {
		return 0, false
	}
	var n uint64
	for _, c := range msg[i+len(numberKey):] {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		case c == '"':
			return n, true
		default:
			return 0, false
		}
	}
	return 0, false
}

func (a arrival) arrivedAt() time.Time { return a.arrived }
func (a arrival) readAt() time.Time    { return a.read }

// headSpan is one head as the subscribers saw it.
type headSpan struct {
	number      uint64
	first, last time.Time
	count       int
}

// headSpans aggregates the arrivals per head, by the time at picks; the heads
// first seen inside [from, to] are kept (every subscriber had the whole
// head's time to receive them), in block order.
func headSpans(subs []*subscriber, from, to time.Time, at func(arrival) time.Time) []headSpan {
	all := map[uint64]*headSpan{}
	for _, s := range subs {
		for _, a := range s.arrivals {
			t := at(a)
			g := all[a.number]
			if g == nil {
				g = &headSpan{number: a.number, first: t, last: t}
				all[a.number] = g
			}
			if t.Before(g.first) {
				g.first = t
			}
			if t.After(g.last) {
				g.last = t
			}
			g.count++
		}
	}
	spans := make([]headSpan, 0, len(all))
	for _, g := range all {
		if !g.first.Before(from) && !g.first.After(to) {
			spans = append(spans, *g)
		}
	}
	slices.SortFunc(spans, func(a, b headSpan) int { return cmp.Compare(a.number, b.number) })
	return spans
}

// spreads summarizes the spans: how many heads, how many did not reach
// want subscribers, and the distribution of last minus first.
func spreads(spans []headSpan, want int) (heads, undelivered int, spread latency.Durations) {
	sample := make([]time.Duration, 0, len(spans))
	for _, g := range spans {
		if g.count < want {
			undelivered++
		}
		sample = append(sample, g.last.Sub(g.first))
	}
	return len(spans), undelivered, latency.Summarize(sample)
}

// writeHeads writes one CSV line per head: number, first arrival (Unix ns),
// arrival spread and read spread (µs; -1 when the read window missed it).
func writeHeads(path string, arrived, read []headSpan) error {
	readSpread := make(map[uint64]int64, len(read))
	for _, r := range read {
		readSpread[r.number] = r.last.Sub(r.first).Microseconds()
	}
	var b strings.Builder
	b.WriteString("number,first_arrival_unix_ns,arrival_spread_us,read_spread_us\n")
	for _, a := range arrived {
		rs, ok := readSpread[a.number]
		if !ok {
			rs = -1
		}
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", a.number, a.first.UnixNano(), a.last.Sub(a.first).Microseconds(), rs)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("heads file: %w", err)
	}
	return nil
}
