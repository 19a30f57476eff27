package seqlog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// tick is a small entry whose content says its position.
func tick(i uint64) Preconfirmed {
	return Preconfirmed{Number: i / 4, Index: i % 4, GasUsed: i, Transactions: [][]byte{{byte(i), byte(i >> 8)}}}
}

func checkTicks(t *testing.T, recs []Record, from uint64) {
	t.Helper()
	for i, rec := range recs {
		seq := from + uint64(i)
		if rec.Seq != seq {
			t.Fatalf("record %d has sequence %d, want %d", i, rec.Seq, seq)
		}
		if !reflect.DeepEqual(rec.Entry, tick(seq)) {
			t.Fatalf("record %d: %+v, want %+v", seq, rec.Entry, tick(seq))
		}
	}
}

func TestOrderOver10000Appends(t *testing.T) {
	l := openTest(t, Config{})
	const n = 10_000
	for i := uint64(1); i <= n; i++ {
		if seq := mustAppend(t, l, tick(i)); seq != i {
			t.Fatalf("append %d got sequence %d", i, seq)
		}
	}
	recs := readAll(t, l, 0)
	if len(recs) != n {
		t.Fatalf("read %d records, want %d", len(recs), n)
	}
	checkTicks(t, recs, 1)
	last, err := l.Last(context.Background())
	if err != nil || last.Seq != n || !reflect.DeepEqual(last.Entry, tick(n)) {
		t.Errorf("Last = %d %+v, %v; want %d", last.Seq, last.Entry, err, n)
	}
	info, err := l.Info(context.Background())
	if err != nil || info.FirstSeq != 1 || info.LastSeq != n || info.Entries != n || info.Bytes == 0 {
		t.Errorf("Info = %+v, %v", info, err)
	}
}

func TestReopenLearnsLast(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, Config{Dir: dir})
	if rec := l.Opened(); rec.Seq != 0 || rec.Entry != nil {
		t.Errorf("new log opened at %+v", rec)
	}
	if _, err := l.Last(context.Background()); !errors.Is(err, ErrEmpty) {
		t.Errorf("Last of an empty log: %v, want ErrEmpty", err)
	}
	for i := uint64(1); i <= 3; i++ {
		mustAppend(t, l, tick(i))
	}
	l.Close()

	l = openTest(t, Config{Dir: dir})
	if rec := l.Opened(); rec.Seq != 3 || !reflect.DeepEqual(rec.Entry, tick(3)) {
		t.Errorf("reopened at %d %+v, want 3 %+v", rec.Seq, rec.Entry, tick(3))
	}
	if seq := mustAppend(t, l, tick(4)); seq != 4 {
		t.Errorf("append after reopening got sequence %d, want 4", seq)
	}
}

func TestRead(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	if recs := readAll(t, l, 1); len(recs) != 0 {
		t.Errorf("read %d records of an empty log", len(recs))
	}
	for i := uint64(1); i <= 50; i++ {
		mustAppend(t, l, tick(i))
	}
	tests := []struct {
		from, n uint64
	}{
		{0, 50}, {1, 50}, {20, 31}, {50, 1}, {51, 0}, {1000, 0},
	}
	for _, tt := range tests {
		recs := readAll(t, l, tt.from)
		if uint64(len(recs)) != tt.n {
			t.Errorf("read from %d: %d records, want %d", tt.from, len(recs), tt.n)
			continue
		}
		checkTicks(t, recs, max(tt.from, 1))
	}
}

func TestReadStopsWhereTheCallerStops(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	for i := uint64(1); i <= 10; i++ {
		mustAppend(t, l, tick(i))
	}
	var got []uint64
	for rec, err := range l.Read(context.Background(), 3) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, rec.Seq); rec.Seq == 5 {
			break
		}
	}
	if !reflect.DeepEqual(got, []uint64{3, 4, 5}) {
		t.Errorf("read %v", got)
	}
}

func TestFollow(t *testing.T) {
	l := openTest(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 200
	var (
		recs    []Record
		lastErr error
		wg      sync.WaitGroup
	)
	started := make(chan struct{})
	wg.Go(func() {
		close(started)
		for rec, err := range l.Follow(ctx, 1) {
			if err != nil {
				lastErr = err
				return
			}
			if recs = append(recs, rec); len(recs) == n {
				cancel() // the next Next ends with the context
			}
		}
	})
	<-started
	for i := uint64(1); i <= n; i++ {
		mustAppend(t, l, tick(i))
		if i%50 == 0 {
			time.Sleep(10 * time.Millisecond) // let the follower catch up: it must wait, not end
		}
	}
	wg.Wait()
	if len(recs) != n {
		t.Fatalf("followed %d records, want %d", len(recs), n)
	}
	checkTicks(t, recs, 1)
	if !errors.Is(lastErr, context.Canceled) {
		t.Errorf("follow ended with %v, want context.Canceled", lastErr)
	}
}

func TestFollowFromTheMiddle(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	for i := uint64(1); i <= 30; i++ {
		mustAppend(t, l, tick(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var recs []Record
	for rec, err := range l.Follow(ctx, 25) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		if rec.Seq == 30 {
			mustAppend(t, l, tick(31)) // arrives while following
		}
		if rec.Seq == 31 {
			break
		}
	}
	checkTicks(t, recs, 25)
	if len(recs) != 7 {
		t.Errorf("followed %d records from 25 to 31", len(recs))
	}
}

func TestReadTruncated(t *testing.T) {
	// Tiny limits so that retention drops the first entries.
	l := openTest(t, Config{MaxBytes: 4 << 10, MaxEntryBytes: 1 << 10})
	for i := uint64(1); i <= 200; i++ {
		mustAppend(t, l, tick(i))
	}
	info, err := l.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.FirstSeq <= 1 || info.Bytes > 4<<10 {
		t.Fatalf("retention kept %+v", info)
	}
	for _, read := range []func(context.Context, uint64) iter.Seq2[Record, error]{l.Read, l.Follow} {
		for _, err := range read(context.Background(), 1) {
			if !errors.Is(err, ErrTruncated) {
				t.Errorf("reading dropped entries: %v, want ErrTruncated", err)
			}
			break
		}
	}
	checkTicks(t, readAll(t, l, info.FirstSeq), info.FirstSeq)
}

func TestFenced(t *testing.T) {
	keys, users := writers(t, 3)
	first := openTest(t, Config{Listen: "127.0.0.1:0", Signer: keys[0], Users: users})
	mustAppend(t, first, tick(1))
	second := openTest(t, Config{URLs: []string{first.URL()}, Signer: keys[1], Connect: connectAs(keys[1])})
	if rec := second.Opened(); rec.Seq != 1 {
		t.Fatalf("second writer opened at %d, want 1", rec.Seq)
	}
	mustAppend(t, first, tick(2))
	if _, err := second.Append(context.Background(), tick(3)); !errors.Is(err, ErrFenced) {
		t.Fatalf("stale writer's append: %v, want ErrFenced", err)
	}
	// A new writer takes over, and the old one is fenced in its turn.
	third := openTest(t, Config{URLs: []string{first.URL()}, Signer: keys[2], Connect: connectAs(keys[2])})
	if seq := mustAppend(t, third, tick(3)); seq != 3 {
		t.Errorf("new writer appended at %d, want 3", seq)
	}
	if _, err := first.Append(context.Background(), tick(4)); !errors.Is(err, ErrFenced) {
		t.Fatalf("first writer's append after the takeover: %v, want ErrFenced", err)
	}
	checkTicks(t, readAll(t, first, 1), 1)
}

// After an append that failed without saying whether it was stored, the
// same entry appended again is not stored twice, and a different one goes
// after it.
func TestAppendAfterUnsureFailure(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	mustAppend(t, l, tick(1))
	seq := mustAppend(t, l, tick(2))
	// As if the acknowledgement of tick 2 had been lost.
	l.last, l.unsure = seq-1, true
	l.pending = append([]byte(l.subject+KindPreconfirmed.String()+"\x00"), mustEncode(t, tick(2))...)
	if got := mustAppend(t, l, tick(2)); got != seq {
		t.Errorf("retried append got sequence %d, want %d (stored twice?)", got, seq)
	}
	l.last, l.unsure = seq-1, true
	if got := mustAppend(t, l, tick(3)); got != seq+1 {
		t.Errorf("append after a stored failure got sequence %d, want %d", got, seq+1)
	}
	checkTicks(t, readAll(t, l, 1), 1)

	// Stored but not by this writer: fenced.
	l.last, l.unsure = seq, true
	if _, err := l.Append(context.Background(), tick(4)); !errors.Is(err, ErrFenced) {
		t.Errorf("append after another writer's entry: %v, want ErrFenced", err)
	}
}

func mustEncode(t *testing.T, e Entry) []byte {
	t.Helper()
	enc, err := encodeEntry(e)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// Replicas on other machines read the exposed embedded server with a plain
// NATS client.
func TestListenerServesReplicas(t *testing.T) {
	keys, users := writers(t, 2)
	l := openTest(t, Config{Listen: "127.0.0.1:0", Signer: keys[0], Users: users})
	url := l.URL()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("URL %q, want the bound address", url)
	}
	for i := uint64(1); i <= 5; i++ {
		mustAppend(t, l, tick(i))
	}
	nc, err := nats.Connect(url, connectAs(keys[1])...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, StreamName(testChainID), jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(5, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for msg := range batch.Messages() {
		n++
		if want := "stocknode.84538453.log.preconfirmed"; msg.Subject() != want {
			t.Errorf("subject %q, want %q", msg.Subject(), want)
		}
	}
	if n != 5 {
		t.Errorf("fetched %d messages, want 5 (%v)", n, batch.Error())
	}
}

func TestEmbeddedServerOptions(t *testing.T) {
	l := openTest(t, Config{})
	if cfg := l.server.srv.JetStreamConfig(); cfg == nil || !cfg.SyncAlways {
		t.Errorf("JetStream config %+v: writes are not synced", cfg)
	}
	if l.URL() != "" {
		t.Errorf("URL %q without a listener", l.URL())
	}
	if addr := l.server.srv.Addr(); addr != nil {
		t.Errorf("embedded server listens on %v without Listen", addr)
	}
}

func TestListenAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Open(context.Background(), Config{ChainID: 1, Dir: t.TempDir(), Listen: ln.Addr().String()}, testLogger(t))
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("Open on a port in use: %v, want an error naming the address", err)
	}
}

func TestExternalServerMaxPayload(t *testing.T) {
	keys, users := writers(t, 2)
	small := openTest(t, Config{Listen: "127.0.0.1:0", MaxEntryBytes: 1 << 20, Signer: keys[0], Users: users})
	_, err := Open(context.Background(), Config{ChainID: testChainID, URLs: []string{small.URL()}, Connect: connectAs(keys[1])}, testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "max_payload") {
		t.Errorf("Open with entries larger than the server's max_payload: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // in the error; empty for a valid config
	}{
		{"embedded", Config{ChainID: 1, Dir: "/d"}, ""},
		{"dev", Config{ChainID: 1, InMemory: true, Listen: "127.0.0.1:0"}, ""},
		{"cluster", Config{ChainID: 1, URLs: []string{"nats://a:4222", "tls://b:4222"}, Replicas: 3}, ""},
		{"no chain", Config{Dir: "/d"}, "ChainID"},
		{"no dir", Config{ChainID: 1}, "Dir"},
		{"both", Config{ChainID: 1, Dir: "/d", URLs: []string{"nats://a:4222"}}, "URLs"},
		{"listen and urls", Config{ChainID: 1, Listen: ":4222", URLs: []string{"nats://a:4222"}}, "Listen"},
		{"embedded replicas", Config{ChainID: 1, Dir: "/d", Replicas: 3}, "Replicas 3 needs an external"},
		{"replicas 2", Config{ChainID: 1, URLs: []string{"nats://a:4222"}, Replicas: 2}, "Replicas 2 must be 1, 3 or 5"},
		{"bad url", Config{ChainID: 1, URLs: []string{"http://a:4222"}}, "nats://"},
		{"url without host", Config{ChainID: 1, URLs: []string{"nats://"}}, "no host"},
		{"listen no port", Config{ChainID: 1, Dir: "/d", Listen: "localhost"}, "host:port"},
		{"listen bad port", Config{ChainID: 1, Dir: "/d", Listen: "localhost:70000"}, "port"},
		{"max bytes", Config{ChainID: 1, Dir: "/d", MaxBytes: -1}, "MaxBytes"},
		{"entry too big", Config{ChainID: 1, Dir: "/d", MaxEntryBytes: 100 << 20}, "MaxEntryBytes"},
		{"entry over stream", Config{ChainID: 1, Dir: "/d", MaxBytes: 1 << 20, MaxEntryBytes: 2 << 20}, "exceeds MaxBytes"},
		{"max age", Config{ChainID: 1, Dir: "/d", MaxAge: -time.Second}, "MaxAge"},
		{"ack timeout", Config{ChainID: 1, Dir: "/d", AckTimeout: -time.Second}, "AckTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.withDefaults().Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("valid config: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
	if _, err := Open(context.Background(), Config{ChainID: 1}, testLogger(t)); err == nil || !strings.Contains(err.Error(), "Dir") {
		t.Errorf("Open with a bad config: %v", err)
	}
}

func TestLastOf(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	ctx := context.Background()
	if _, err := l.LastOf(ctx, KindSealed); !errors.Is(err, ErrEmpty) {
		t.Fatalf("LastOf an empty log: %v, want ErrEmpty", err)
	}
	sealed := Sealed{Number: 7, Block: []byte{1}}
	mustAppend(t, l, tick(1))
	mustAppend(t, l, sealed)
	mustAppend(t, l, tick(2))
	rec, err := l.LastOf(ctx, KindSealed)
	if err != nil || rec.Seq != 2 || !reflect.DeepEqual(rec.Entry, sealed) {
		t.Fatalf("LastOf(sealed) = %d %+v, %v; want 2 %+v", rec.Seq, rec.Entry, err, sealed)
	}
}

// An append waits out a log that is unavailable for a while (here its
// server restarting; on a cluster, the stream's leader lost and another
// elected) instead of failing, and fails once the outage outlasts
// OutageTimeout.
func TestAppendOutlastsAnOutage(t *testing.T) {
	tests := []struct {
		name    string
		back    bool // the server comes back within OutageTimeout
		wantErr bool
	}{
		{"server back in time", true, false},
		{"server gone for good", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{ChainID: testChainID, Dir: t.TempDir(), Listen: "127.0.0.1:0"}.withDefaults()
			srv, err := startServer(cfg, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			url := srv.url(cfg)
			l := openTest(t, Config{URLs: []string{url}, AckTimeout: 500 * time.Millisecond, OutageTimeout: 10 * time.Second})
			if !tt.back {
				l.cfg.OutageTimeout = 2 * time.Second
			}
			mustAppend(t, l, tick(1))
			srv.shutdown()

			done := make(chan error, 1)
			var seq uint64
			go func() {
				var err error
				seq, err = l.Append(context.Background(), tick(2))
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("append while the server is down returned at once: %v", err)
			case <-time.After(time.Second):
			}
			if tt.back {
				cfg.Listen = strings.TrimPrefix(url, "nats://")
				srv, err := startServer(cfg, testLogger(t))
				if err != nil {
					t.Fatal(err)
				}
				defer srv.shutdown()
			}
			select {
			case err := <-done:
				switch {
				case tt.wantErr && (err == nil || errors.Is(err, ErrFenced)):
					t.Fatalf("append with the server gone: %v, want it to fail, not fenced", err)
				case !tt.wantErr && err != nil:
					t.Fatalf("append across the outage: %v", err)
				case !tt.wantErr && seq != 2:
					t.Fatalf("append across the outage got sequence %d, want 2", seq)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("append still waiting 20s after the outage ended")
			}
			if tt.back {
				checkTicks(t, readAll(t, l, 1), 1)
			}
		})
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{context.DeadlineExceeded, true},
		{nats.ErrNoResponders, true},
		{jetstream.ErrNoStreamResponse, true},
		{fmt.Errorf("sequencer log: learn whether the failed append was stored: %w", nats.ErrTimeout), true},
		{fmt.Errorf("nats: %w", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}), true},
		{fmt.Errorf("append: %w", ErrFenced), false},
		{nats.ErrConnectionClosed, false},
		{fmt.Errorf("nats: %w", &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamMessageExceedsMaximum}), false},
		{errors.New("something else"), false},
	}
	for _, tt := range tests {
		if got := transient(tt.err); got != tt.want {
			t.Errorf("transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// A follower whose consumer is lost (deleted, or gone with its server)
// reads on from where it was with another, with no gap and nothing twice,
// within seconds: a replica must keep up with a sequencer that outlasted
// the same loss.
func TestFollowOutlivesItsConsumer(t *testing.T) {
	tests := []struct {
		name string
		lose func(t *testing.T, l *Log, restart func())
	}{
		{"consumer deleted", func(t *testing.T, l *Log, _ func()) {
			for name := range l.stream.ListConsumers(context.Background()).Info() {
				if err := l.stream.DeleteConsumer(context.Background(), name.Name); err != nil {
					t.Error(err)
				}
			}
		}},
		{"server restarted", func(t *testing.T, l *Log, restart func()) { restart() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{ChainID: testChainID, Dir: t.TempDir(), Listen: "127.0.0.1:0"}.withDefaults()
			srv, err := startServer(cfg, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.shutdown() })
			url := srv.url(cfg)
			restart := func() {
				srv.shutdown()
				cfg.Listen = strings.TrimPrefix(url, "nats://")
				if srv, err = startServer(cfg, testLogger(t)); err != nil {
					t.Fatal(err)
				}
			}
			l := openTest(t, Config{URLs: []string{url}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			recs := make(chan Record)
			followErr := make(chan error, 1)
			go func() {
				for rec, err := range l.Follow(ctx, 1) {
					if err != nil {
						followErr <- err
						return
					}
					recs <- rec
				}
			}()
			next := func(want uint64) time.Duration {
				start := time.Now()
				select {
				case rec := <-recs:
					checkTicks(t, []Record{rec}, want)
				case err := <-followErr:
					t.Fatalf("follow ended waiting for entry %d: %v", want, err)
				case <-ctx.Done():
					t.Fatalf("entry %d not followed", want)
				}
				return time.Since(start)
			}
			for i := uint64(1); i <= 3; i++ {
				mustAppend(t, l, tick(i))
				next(i)
			}
			tt.lose(t, l, restart)
			for i := uint64(4); i <= 6; i++ {
				mustAppend(t, l, tick(i))
			}
			// Two missed heartbeats and a new consumer.
			if d := next(4); d > 5*time.Second {
				t.Errorf("entry 4 followed %v after it was appended, want within a few seconds", d)
			}
			next(5)
			next(6)
		})
	}
}

// Each successful append is timed for Config.ObserveAppend.
func TestObserveAppend(t *testing.T) {
	var appends atomic.Int64
	l := openTest(t, Config{InMemory: true, ObserveAppend: func(d time.Duration) {
		if d > 0 {
			appends.Add(1)
		}
	}})
	for i := uint64(1); i <= 3; i++ {
		mustAppend(t, l, tick(i))
	}
	if n := appends.Load(); n != 3 {
		t.Fatalf("%d appends observed, want 3", n)
	}
}

// AppendAll stores its entries in order, and appended again after a
// failure that left some or all of them stored, it stores none twice.
func TestAppendAll(t *testing.T) {
	l := openTest(t, Config{InMemory: true})
	ctx := context.Background()
	mustAppend(t, l, tick(1))
	if err := l.AppendAll(ctx, tick(2), tick(3), tick(4)); err != nil {
		t.Fatal(err)
	}
	if l.last != 4 {
		t.Fatalf("last %d after appending 4 entries, want 4", l.last)
	}
	for _, stored := range []uint64{1, 3} { // of the three entries 5, 6, 7 sent again
		if err := l.AppendAll(ctx, tick(5), tick(6), tick(7)); err != nil {
			t.Fatal(err)
		}
		// As if the acknowledgements after the first stored ones had
		// been lost.
		l.last, l.unsure, l.pending = 4+stored-1, true, mustKey(t, l, tick(4+stored))
		if stored == 3 {
			l.last, l.pending = 4, mustKey(t, l, tick(5))
		}
		if err := l.AppendAll(ctx, tick(5), tick(6), tick(7)); err != nil {
			t.Fatalf("%d of 3 stored: append again: %v", stored, err)
		}
		if l.last != 7 {
			t.Fatalf("%d of 3 stored: last %d after appending them again, want 7 (stored twice?)", stored, l.last)
		}
		checkTicks(t, readAll(t, l, 1), 1)
		// Start the next round from a log that ends at 4 again.
		if stored == 1 {
			l = openTest(t, Config{InMemory: true})
			for i := uint64(1); i <= 4; i++ {
				mustAppend(t, l, tick(i))
			}
		}
	}
	if err := l.AppendAll(ctx, tick(8)); err != nil || l.last != 8 {
		t.Fatalf("one entry: %v, last %d", err, l.last)
	}
	checkTicks(t, readAll(t, l, 1), 1)
}

// AppendAll of a writer another has appended after is fenced, and stores
// nothing.
func TestAppendAllFenced(t *testing.T) {
	keys, users := writers(t, 2)
	first := openTest(t, Config{Listen: "127.0.0.1:0", Signer: keys[0], Users: users})
	mustAppend(t, first, tick(1))
	second := openTest(t, Config{URLs: []string{first.URL()}, Signer: keys[1], Connect: connectAs(keys[1])})
	mustAppend(t, first, tick(2))
	if err := second.AppendAll(context.Background(), tick(3), tick(4)); !errors.Is(err, ErrFenced) {
		t.Fatalf("stale writer's AppendAll: %v, want ErrFenced", err)
	}
	checkTicks(t, readAll(t, first, 1), 1)
	if recs := readAll(t, first, 1); len(recs) != 2 {
		t.Fatalf("%d entries after the fenced AppendAll, want 2", len(recs))
	}
}

func mustKey(t *testing.T, l *Log, e Entry) []byte {
	t.Helper()
	p, err := l.prepare(e)
	if err != nil {
		t.Fatal(err)
	}
	return p.key()
}
