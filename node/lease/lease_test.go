package lease

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startNATS starts an in-process JetStream server and returns its URL.
func startNATS(t *testing.T) string {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(5 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	return srv.ClientURL()
}

// candidate opens the lease as holder over its own connection.
func candidate(t *testing.T, url, holder string, cfg Config) *Lease {
	l, _ := candidateConn(t, url, holder, cfg)
	return l
}

func candidateConn(t *testing.T, url, holder string, cfg Config) (*Lease, *nats.Conn) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ChainID, cfg.Holder = 7, holder
	l, err := Open(context.Background(), js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l, nc
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestConfigRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
	}{
		{"no holder", Config{TTL: time.Second, Renew: 100 * time.Millisecond}},
		{"ttl below JetStream's shortest age", Config{Holder: "a", TTL: 50 * time.Millisecond, Renew: 10 * time.Millisecond}},
		{"renewal does not fit twice", Config{Holder: "a", TTL: time.Second, Renew: 600 * time.Millisecond}},
		{"entry expires inside a TTL", Config{Holder: "a", TTL: time.Second, Renew: 100 * time.Millisecond, Expiry: 500 * time.Millisecond}},
	} {
		if err := tt.cfg.withDefaults().validate(); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	if err := (Config{Holder: "a"}).withDefaults().validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

// TestAcquireRenewRelease: one holder at a time; a renewal by a holder
// whose lease another took is refused; a release frees it at once.
func TestAcquireRenewRelease(t *testing.T) {
	url := startNATS(t)
	ctx := context.Background()
	// The server's expiry of the entry, the backstop, is what this test
	// times.
	cfg := Config{TTL: 400 * time.Millisecond, Renew: 100 * time.Millisecond, Expiry: 400 * time.Millisecond}
	a, b := candidate(t, url, "a", cfg), candidate(t, url, "b", cfg)

	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	if held, err := b.Acquire(ctx); held || err != nil {
		t.Fatalf("b takes a's lease: %t, %v", held, err)
	}
	if who, err := b.Holder(ctx); who != "a" || err != nil {
		t.Fatalf("holder %q, %v; want a", who, err)
	}
	for range 5 { // renewed well past one TTL
		time.Sleep(cfg.Renew)
		if err := a.Renew(ctx); err != nil {
			t.Fatalf("a renews: %v", err)
		}
	}
	if held, _ := b.Acquire(ctx); held {
		t.Fatal("b took a lease a kept renewing")
	}

	// a stops renewing: the lease expires TTL after the last renewal, when
	// the server's expiry timer runs (later on a loaded machine).
	renewed := time.Now()
	for {
		held, err := b.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if held {
			if since := time.Since(renewed); since < cfg.TTL {
				t.Fatalf("b took the lease %v after a's last renewal, inside its TTL %v", since, cfg.TTL)
			}
			break
		}
		if time.Since(renewed) > cfg.TTL+5*time.Second {
			t.Fatal("b cannot take the expired lease")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := a.Renew(ctx); err != ErrLost {
		t.Fatalf("a renews b's lease: %v, want ErrLost", err)
	}

	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes the released lease at once: %t, %v", held, err)
	}
}

// TestCampaignOneLeaderAndTakeover: candidates started at once elect
// exactly one leader; when it dies without a word (its connection gone,
// no release), another leads.
func TestCampaignOneLeaderAndTakeover(t *testing.T) {
	url := startNATS(t)
	cfg := Config{TTL: 500 * time.Millisecond, Renew: 100 * time.Millisecond}
	var (
		mu      sync.Mutex
		leading = map[string]bool{}
		most    atomic.Int32
		led     = make(chan string, 8)
	)
	lead := func(name string) func(context.Context) {
		return func(ctx context.Context) {
			mu.Lock()
			leading[name] = true
			n := int32(0)
			for _, on := range leading {
				if on {
					n++
				}
			}
			most.Store(max(most.Load(), n))
			mu.Unlock()
			led <- name
			<-ctx.Done()
			mu.Lock()
			leading[name] = false
			mu.Unlock()
		}
	}
	names := []string{"a", "b", "c"}
	cancels := map[string]context.CancelFunc{}
	conns := map[string]*nats.Conn{}
	var wg sync.WaitGroup
	for _, name := range names {
		l, nc := candidateConn(t, url, name, cfg)
		conns[name] = nc
		ctx, cancel := context.WithCancel(context.Background())
		cancels[name] = cancel
		wg.Go(func() { l.Campaign(ctx, quiet(), lead(name)) })
	}
	t.Cleanup(func() {
		for _, cancel := range cancels {
			cancel()
		}
		wg.Wait()
	})

	first := <-led
	time.Sleep(3 * cfg.TTL)
	if most.Load() != 1 {
		t.Fatalf("%d candidates led at once", most.Load())
	}
	// The leader's NATS goes away: it renews no more and releases nothing.
	conns[first].Close()
	killed := time.Now()
	select {
	case next := <-led:
		if next == first {
			t.Fatalf("%s led again without a connection", first)
		}
		// How fast is for the failover benchmark, not for a unit test.
		t.Logf("%s took over %v after %s's connection closed (TTL %v)", next, time.Since(killed).Round(time.Millisecond), first, cfg.TTL)
	case <-time.After(5 * time.Second):
		t.Fatal("no candidate took over")
	}
}

// TestTakeStale: a waiting candidate takes the lease by compare-and-set
// on the revision it saw; a renewal since makes the take fail, and a
// holder whose lease was taken cannot renew it.
func TestTakeStale(t *testing.T) {
	url := startNATS(t)
	ctx := context.Background()
	cfg := Config{TTL: 5 * time.Second, Renew: time.Second}
	a, b := candidate(t, url, "a", cfg), candidate(t, url, "b", cfg)
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	seen := a.rev
	if err := a.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if held, err := b.TakeStale(ctx, seen); held || err != nil {
		t.Fatalf("b takes a lease renewed since it looked: %t, %v", held, err)
	}
	if held, err := b.TakeStale(ctx, a.rev); !held || err != nil {
		t.Fatalf("b takes the lease at its last revision: %t, %v", held, err)
	}
	if who, _ := a.Holder(ctx); who != "b" {
		t.Fatalf("holder %q, want b", who)
	}
	if err := a.Renew(ctx); err != ErrLost {
		t.Fatalf("a renews a lease b took: %v, want ErrLost", err)
	}
}

// A holder whose renewals cannot land for longer than a TTL (the NATS
// server leading the bucket died, and the others elect a successor),
// while no candidate takes the lease, still holds it afterwards: the
// bucket keeps the entry past the TTL.
func TestRenewAfterATTLWithoutRenewals(t *testing.T) {
	url := startNATS(t)
	ctx := context.Background()
	cfg := Config{TTL: 200 * time.Millisecond, Renew: 50 * time.Millisecond}
	a := candidate(t, url, "a", cfg)
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	time.Sleep(3 * cfg.TTL)
	if err := a.Renew(ctx); err != nil {
		t.Fatalf("a renews after %v without renewals, no one else campaigning: %v", 3*cfg.TTL, err)
	}
}

// TestCampaignTakesFromASilentHolder: a holder that stops renewing (no
// release, its entry left in the bucket) loses the lease to a campaigning
// candidate, never inside a TTL of its last renewal.
func TestCampaignTakesFromASilentHolder(t *testing.T) {
	url := startNATS(t)
	cfg := Config{TTL: 400 * time.Millisecond, Renew: 100 * time.Millisecond}
	a, b := candidate(t, url, "a", cfg), candidate(t, url, "b", cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	led := make(chan time.Time, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Campaign(ctx, quiet(), func(ctx context.Context) { led <- time.Now(); <-ctx.Done() })
	}()
	var renewed time.Time
	for range 6 { // renewed past one TTL while b campaigns
		time.Sleep(cfg.Renew)
		renewed = time.Now() // before the write, which b sees after it
		if err := a.Renew(ctx); err != nil {
			t.Fatalf("a renews with b campaigning: %v", err)
		}
	}
	select {
	case at := <-led:
		if since := at.Sub(renewed); since < cfg.TTL {
			t.Fatalf("b led %v after a's last renewal, inside the TTL %v", since, cfg.TTL)
		}
		t.Logf("b led %v after a's last renewal (TTL %v)", at.Sub(renewed).Round(time.Millisecond), cfg.TTL)
	case <-time.After(5 * time.Second):
		t.Fatal("b never took the lease a stopped renewing")
	}
	if err := a.Renew(ctx); err != ErrLost {
		t.Fatalf("a renews after b took over: %v, want ErrLost", err)
	}
	cancel()
	<-done
}

// TestResignBeforeLeadReturns: a lead that resigns gives the lease to
// the next candidate while it is still stepping down, and its candidate
// does not take the lease straight back.
func TestResignBeforeLeadReturns(t *testing.T) {
	url := startNATS(t)
	cfg := Config{TTL: 2 * time.Second, Renew: 200 * time.Millisecond}
	a, b := candidate(t, url, "a", cfg), candidate(t, url, "b", cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stepDown := make(chan struct{})
	led := make(chan string, 4)
	var wg sync.WaitGroup
	wg.Go(func() {
		a.Campaign(ctx, quiet(), func(context.Context) {
			led <- "a"
			a.Resign()
			<-stepDown // a long step-down
		})
	})
	if who := <-led; who != "a" {
		t.Fatalf("%s led first", who)
	}
	wg.Go(func() { b.Campaign(ctx, quiet(), func(ctx context.Context) { led <- "b"; <-ctx.Done() }) })
	select {
	case who := <-led:
		if who != "b" {
			t.Fatalf("%s led after a resigned, want b", who)
		}
	case <-time.After(cfg.TTL): // a takeover by expiry would take longer
		t.Fatal("b did not take the lease a resigned while a was still stepping down")
	}
	close(stepDown)
	time.Sleep(3 * cfg.Renew)
	if who, err := a.Holder(ctx); who != "b" || err != nil {
		t.Fatalf("holder %q (%v) after a's step-down, want b", who, err)
	}
	cancel()
	wg.Wait()
}

// lateAnswers is a bucket whose next writes land but answer as though
// they timed out, as on a machine too loaded to read the answer within
// the caller's context.
type lateAnswers struct {
	jetstream.KeyValue
	late        atomic.Int32 // writes still to answer late
	failedReads atomic.Int32 // reads still to fail
}

func (k *lateAnswers) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if k.failedReads.Add(-1) >= 0 {
		return nil, context.DeadlineExceeded
	}
	return k.KeyValue.Get(ctx, key)
}

func (k *lateAnswers) answer(rev uint64, err error) (uint64, error) {
	if err == nil && k.late.Add(-1) >= 0 {
		return 0, context.DeadlineExceeded
	}
	return rev, err
}

func (k *lateAnswers) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	return k.answer(k.KeyValue.Create(ctx, key, value, opts...))
}

func (k *lateAnswers) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	return k.answer(k.KeyValue.Update(ctx, key, value, rev))
}

// answerLate makes l's next n writes land and answer as timeouts; the
// returned bucket's late says how many more will.
func answerLate(l *Lease, n int32) *lateAnswers {
	k := &lateAnswers{KeyValue: l.kv}
	k.late.Store(n)
	l.kv = k
	return k
}

// TestARenewalThatLandedLate: a renewal that timed out but was written
// leaves the holder its lease (its next renewal and its release work);
// another candidate's write under the same name does not.
func TestARenewalThatLandedLate(t *testing.T) {
	url := startNATS(t)
	ctx := context.Background()
	cfg := Config{TTL: 5 * time.Second, Renew: time.Second}
	a, namesake, b := candidate(t, url, "a", cfg), candidate(t, url, "a", cfg), candidate(t, url, "b", cfg)
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	answerLate(a, 1)
	if err := a.Renew(ctx); err == nil || err == ErrLost {
		t.Fatalf("a renewal answered late: %v, want a timeout", err)
	}
	if err := a.Renew(ctx); err != nil {
		t.Fatalf("a renews after a renewal that landed late: %v", err)
	}
	// The same, with the read that tells whose the entry is failing once:
	// unconfirmed, not lost.
	late := answerLate(a, 1)
	late.failedReads.Store(1)
	_ = a.Renew(ctx)
	if err := a.Renew(ctx); err == nil || err == ErrLost {
		t.Fatalf("a renewal whose entry could not be read: %v, want an error other than ErrLost", err)
	}
	if err := a.Renew(ctx); err != nil {
		t.Fatalf("a renews once the entry reads again: %v", err)
	}
	answerLate(a, 1)
	_ = a.Renew(ctx)
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if held, err := b.Acquire(ctx); !held || err != nil {
		t.Fatalf("b takes the lease a released after a renewal that landed late: %t, %v", held, err)
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}

	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	if held, err := namesake.TakeStale(ctx, a.rev); !held || err != nil {
		t.Fatalf("a's namesake takes the lease: %t, %v", held, err)
	}
	if err := a.Renew(ctx); err != ErrLost {
		t.Fatalf("a renews a lease its namesake took: %v, want ErrLost", err)
	}
	if who, err := a.Holder(ctx); who != "a" || err != nil {
		t.Fatalf("holder %q, %v; want a", who, err)
	}
}

// TestCampaignTakesBackItsOwnLateWrite: a candidate whose take of the
// lease landed but answered late leads without waiting out the TTL, and
// keeps leading through a renewal that does the same.
func TestCampaignTakesBackItsOwnLateWrite(t *testing.T) {
	url := startNATS(t)
	cfg := Config{TTL: 5 * time.Second, Renew: 100 * time.Millisecond}
	a := candidate(t, url, "a", cfg)
	bucket := answerLate(a, 2) // the create, then the take-back's compare-and-set
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	terms := make(chan time.Time, 4)
	done := make(chan struct{})
	started := time.Now()
	go func() {
		defer close(done)
		a.Campaign(ctx, quiet(), func(ctx context.Context) { terms <- time.Now(); <-ctx.Done() })
	}()
	select {
	case at := <-terms:
		if since := at.Sub(started); since >= cfg.TTL {
			t.Fatalf("a led %v after its create landed, a TTL (%v) later: it waited on its own entry", since, cfg.TTL)
		}
	case <-time.After(cfg.TTL):
		t.Fatal("a did not lead within a TTL of its create landing")
	}
	bucket.late.Store(1)
	time.Sleep(10 * cfg.Renew)
	select {
	case <-terms:
		t.Fatal("a's term ended on a renewal that landed late")
	default:
	}
	cancel()
	<-done
}

func TestHolderName(t *testing.T) {
	for _, tt := range []struct{ value, want string }{
		{"seq-1 0123456789abcdef", "seq-1"},
		{"host 42 0123456789abcdef", "host 42"},
		{"seq-1", "seq-1"},                                   // written before stamps were
		{"seq-1 0123456789abcdeg", "seq-1 0123456789abcdeg"}, // not a stamp
		{"seq-1 0123", "seq-1 0123"},
		{"", ""},
	} {
		if got := holderName([]byte(tt.value)); got != tt.want {
			t.Errorf("holderName(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
	v, err := entryValue("host 42")
	if err != nil {
		t.Fatal(err)
	}
	if got := holderName(v); got != "host 42" {
		t.Errorf("holderName(entryValue(%q)) = %q", "host 42", got)
	}
}

// TestAReleaseThatCannotTellItsEntry: a release that meets a later
// revision, its own late renewal, and cannot read whose it is says the
// lease was not released (the entry stays until it expires).
func TestAReleaseThatCannotTellItsEntry(t *testing.T) {
	url := startNATS(t)
	a := candidate(t, url, "a", Config{TTL: 5 * time.Second, Renew: time.Second})
	ctx := context.Background()
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	late := answerLate(a, 1)
	if err := a.Renew(ctx); err == nil || err == ErrLost {
		t.Fatalf("a renewal answered late: %v, want a timeout", err)
	}
	late.failedReads.Store(1)
	if err := a.Release(ctx); err == nil {
		t.Fatal("a release that could not read the entry reported none")
	}
	if e, err := a.kv.Get(ctx, key); err != nil || holderName(e.Value()) != "a" {
		t.Fatalf("the entry: %v, %v; want a's, left to expire", e, err)
	}
}

// failedDeletes is a bucket whose deletes fail and change nothing.
type failedDeletes struct{ jetstream.KeyValue }

func (failedDeletes) Delete(context.Context, string, ...jetstream.KVDeleteOpt) error {
	return context.DeadlineExceeded
}

// TestNoTakeBackAfterGivingUp: a candidate whose release failed, its entry
// left in the bucket, does not take that entry back at once: the next
// candidate (a planned handover's) goes first.
func TestNoTakeBackAfterGivingUp(t *testing.T) {
	url := startNATS(t)
	cfg := Config{TTL: 5 * time.Second, Renew: time.Second}
	a := candidate(t, url, "a", cfg)
	ctx := context.Background()
	if held, err := a.Acquire(ctx); !held || err != nil {
		t.Fatalf("a takes a free lease: %t, %v", held, err)
	}
	left := a.rev
	a.kv = failedDeletes{a.kv}
	if err := a.Release(ctx); err == nil {
		t.Fatal("a release whose delete failed reported none")
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if a.awaitTurn(short, quiet()) {
		t.Fatal("a took back at once the entry it had given up")
	}
	e, err := a.kv.Get(ctx, key)
	if err != nil || e.Revision() != left {
		t.Fatalf("the entry: %v, %v; want a's, untouched at revision %d", e, err, left)
	}
}
