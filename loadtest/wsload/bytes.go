package wsload

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
)

// BytesConfig is a ws-bytes run: one subscriber that offers
// permessage-deflate and one that does not, side by side on the same
// stream, for how many bytes each notification takes on the wire.
type BytesConfig struct {
	URL      string
	Kind     string
	Duration time.Duration
}

// BytesFlags registers the ws-bytes mode's flags on fs.
func BytesFlags(fs *flag.FlagSet) *BytesConfig {
	c := new(BytesConfig)
	fs.StringVar(&c.URL, "url", "ws://127.0.0.1:8545/ws", "WebSocket endpoint")
	fs.StringVar(&c.Kind, "kind", "newFlashblocks", "subscription kind")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "how long both subscribers listen")
	return c
}

// BytesReport is per subscriber what its notifications took.
type BytesReport struct {
	URL   string        `json:"url"`
	Kind  string        `json:"kind"`
	Plain StreamBytes   `json:"plain"`
	Zip   StreamBytes   `json:"deflate"`
	Took  time.Duration `json:"took"`
}

// StreamBytes is one subscriber's stream: its notifications, the bytes
// they took on the wire (frames included) and their messages' length.
type StreamBytes struct {
	Negotiated    string `json:"negotiated"`
	Notifications int64  `json:"notifications"`
	WireBytes     int64  `json:"wireBytes"`
	MessageBytes  int64  `json:"messageBytes"`
}

func (s StreamBytes) perNote(n int64) float64 { return float64(n) / float64(max(s.Notifications, 1)) }

func (r BytesReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ws-bytes %s %s over %s\n", r.URL, r.Kind, r.Took.Round(time.Millisecond))
	for _, s := range []struct {
		name string
		s    StreamBytes
	}{{"plain", r.Plain}, {"deflate", r.Zip}} {
		fmt.Fprintf(&b, "%-8s extensions=%q notifications=%d wire=%.0f B/notification message=%.0f B/notification\n",
			s.name, s.s.Negotiated, s.s.Notifications, s.s.perNote(s.s.WireBytes), s.s.perNote(s.s.MessageBytes))
	}
	if r.Plain.WireBytes > 0 && r.Zip.Notifications > 0 {
		fmt.Fprintf(&b, "deflate/plain wire bytes per notification: %.3f\n",
			r.Zip.perNote(r.Zip.WireBytes)/r.Plain.perNote(r.Plain.WireBytes))
	}
	return b.String()
}

// RunBytes subscribes twice, with and without compression, and counts.
func RunBytes(ctx context.Context, cfg BytesConfig) (BytesReport, error) {
	r := BytesReport{URL: cfg.URL, Kind: cfg.Kind}
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, out := range []*StreamBytes{&r.Plain, &r.Zip} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = listen(ctx, cfg, i == 1, out)
		}()
	}
	wg.Wait()
	r.Took = time.Since(start)
	for _, err := range errs {
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// countingConn counts the bytes read from the socket.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func listen(ctx context.Context, cfg BytesConfig, deflate bool, out *StreamBytes) error {
	var counted *countingConn
	dialer := websocket.Dialer{
		EnableCompression: deflate,
		HandshakeTimeout:  10 * time.Second,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			counted = &countingConn{Conn: c}
			return counted, nil
		},
	}
	conn, resp, err := dialer.DialContext(ctx, cfg.URL, nil)
	if err != nil {
		return fmt.Errorf("dial %s: %w", cfg.URL, err)
	}
	defer conn.Close()
	out.Negotiated = resp.Header.Get("Sec-WebSocket-Extensions")
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":[%q]}`, cfg.Kind)
	if err := conn.WriteMessage(websocket.TextMessage, []byte(req)); err != nil {
		return err
	}
	if _, msg, err := conn.ReadMessage(); err != nil || !strings.Contains(string(msg), `"result"`) {
		return fmt.Errorf("subscribe %s: %s %v", cfg.Kind, msg, err)
	}
	// Counted from here: the handshake and the subscription's answer are
	// not notifications.
	base := counted.n.Load()
	go func() { <-ctx.Done(); conn.Close() }()
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("read: %w", err)
		}
		out.Notifications++
		out.MessageBytes += int64(len(msg))
		out.WireBytes = counted.n.Load() - base
	}
}
