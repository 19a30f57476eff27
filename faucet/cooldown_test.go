package faucet

import (
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/ethereum/go-ethereum/common"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openTestCooldowns(t *testing.T, dir string, period time.Duration, clk *clock) *cooldowns {
	t.Helper()
	c, err := openCooldowns(dir, period, clk.now, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close() })
	return c
}

// records counts the database's records by prefix.
func records(t *testing.T, c *cooldowns) map[byte]int {
	t.Helper()
	iter, err := c.db.NewIter(&pebble.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer iter.Close()
	n := map[byte]int{}
	for iter.First(); iter.Valid(); iter.Next() {
		n[iter.Key()[0]]++
	}
	return n
}

// mustReserve reserves keys, failing the test if any must wait.
func mustReserve(t *testing.T, c *cooldowns, keys ...cooldownKey) *reservation {
	t.Helper()
	r, w, err := c.reserve(keys...)
	if err != nil || w != nil {
		t.Fatalf("reserve %v: wait %+v, %v", keys, w, err)
	}
	return r
}

func TestCooldownReserveCommitRelease(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	c := openTestCooldowns(t, "", 10*time.Second, clk)
	alice, bob := addressKey(common.Address{0xa}), addressKey(common.Address{0xb})
	ip := clientKey(netip.MustParseAddr("192.0.2.1"))

	r := mustReserve(t, c, alice, ip)
	if _, w, _ := c.reserve(alice); w == nil || !w.inProgress || w.key != alice {
		t.Fatalf("reserved key: wait %+v, want in progress", w)
	}
	r.release()
	r = mustReserve(t, c, alice, ip) // a failed drip spent nothing
	if err := r.commit(common.Address{0xa}); err != nil {
		t.Fatal(err)
	}
	clk.advance(3 * time.Second)
	tests := []struct {
		keys []cooldownKey
		want cooldownKey
		d    time.Duration
	}{
		{[]cooldownKey{alice}, alice, 7 * time.Second},
		{[]cooldownKey{bob, ip}, ip, 7 * time.Second},
		{[]cooldownKey{bob}, "", 0},
	}
	for _, tt := range tests {
		r, w, err := c.reserve(tt.keys...)
		switch {
		case err != nil:
			t.Fatal(err)
		case tt.want == "" && w != nil:
			t.Errorf("%v: wait %+v", tt.keys, w)
		case tt.want != "" && (w == nil || w.key != tt.want || w.d != tt.d || w.inProgress):
			t.Errorf("%v: wait %+v, want %s for %v", tt.keys, w, tt.want, tt.d)
		}
		if r != nil {
			r.release()
		}
	}
	clk.advance(7 * time.Second)
	mustReserve(t, c, alice, ip).release()
	if got := c.drips(); got != 1 {
		t.Errorf("drips %d, want 1", got)
	}
}

// TestCooldownOneAtATime: of concurrent reservations of one key, one wins.
func TestCooldownOneAtATime(t *testing.T) {
	c := openTestCooldowns(t, "", time.Minute, &clock{t: time.Unix(1_800_000_000, 0)})
	key := addressKey(common.Address{1})
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, w, err := c.reserve(key, clientKey(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)})))
			if err != nil {
				t.Error(err)
			}
			if w == nil {
				mu.Lock()
				won++
				mu.Unlock()
				_ = r // held to the end: the others must see it
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d reservations of one key, want 1", won)
	}
}

// TestCooldownSweep: expired cooldowns and drips older than an hour leave
// the disk at the next commit; a cooldown renewed after expiry stays.
func TestCooldownSweep(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	c := openTestCooldowns(t, "", 10*time.Second, clk)
	for i := range 50 {
		addr := common.Address{byte(i)}
		if err := mustReserve(t, c, addressKey(addr)).commit(addr); err != nil {
			t.Fatal(err)
		}
	}
	if got := records(t, c); got[prefixCooldown] != 50 || got[prefixExpiry] != 50 || got[prefixDrip] != 50 {
		t.Fatalf("records %v, want 50 of each", got)
	}
	// After the cooldown: the cooldowns go, the drips stay an hour. The
	// renewed cooldown of address 0 stays too.
	clk.advance(11 * time.Second)
	if err := mustReserve(t, c, addressKey(common.Address{0})).commit(common.Address{0}); err != nil {
		t.Fatal(err)
	}
	if got := records(t, c); got[prefixCooldown] != 1 || got[prefixExpiry] != 1 || got[prefixDrip] != 51 {
		t.Fatalf("after the cooldown, records %v, want 1 cooldown and 51 drips", got)
	}
	if _, w, _ := c.reserve(addressKey(common.Address{0})); w == nil {
		t.Fatal("the renewed cooldown was swept")
	}
	clk.advance(time.Hour + time.Nanosecond)
	if got := c.drips(); got != 0 {
		t.Errorf("drips an hour on: %d", got)
	}
	if err := mustReserve(t, c, addressKey(common.Address{0xff})).commit(common.Address{0xff}); err != nil {
		t.Fatal(err)
	}
	if got := records(t, c); got[prefixCooldown] != 1 || got[prefixExpiry] != 1 || got[prefixDrip] != 1 {
		t.Fatalf("an hour on, records %v, want only the last drip's", got)
	}
}

// TestCooldownsSurviveReopen: a reopened database holds the cooldowns
// and drips, and a database reopened after they expired sweeps them.
func TestCooldownsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	c := openTestCooldowns(t, dir, 10*time.Second, clk)
	addr := common.Address{7}
	ip := clientKey(netip.MustParseAddr("2001:db8::1"))
	if err := mustReserve(t, c, addressKey(addr), ip).commit(addr); err != nil {
		t.Fatal(err)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.reserve(addressKey(addr)); err != errClosed {
		t.Fatalf("reserve after close: %v", err)
	}
	clk.advance(4 * time.Second)
	c = openTestCooldowns(t, dir, 10*time.Second, clk)
	for _, k := range []cooldownKey{addressKey(addr), clientKey(netip.MustParseAddr("2001:db8::ffff"))} {
		if _, w, err := c.reserve(k); err != nil || w == nil || w.d != 6*time.Second {
			t.Errorf("%s after reopening: wait %+v, %v; want 6s", k, w, err)
		}
	}
	if got := c.drips(); got != 1 {
		t.Errorf("drips after reopening: %d, want 1", got)
	}
	c.close()
	clk.advance(2 * time.Hour)
	c = openTestCooldowns(t, dir, 10*time.Second, clk)
	if got := records(t, c); len(got) != 0 {
		t.Errorf("expired records kept on reopening: %v", got)
	}
}

// TestNoCooldown: a zero cooldown reserves nothing and counts drips.
func TestNoCooldown(t *testing.T) {
	c := openTestCooldowns(t, "", 0, &clock{t: time.Unix(1_800_000_000, 0)})
	for range 3 {
		if err := mustReserve(t, c, addressKey(common.Address{1})).commit(common.Address{1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.drips(); got != 3 {
		t.Errorf("drips %d, want 3", got)
	}
}

func TestCooldownKeyNames(t *testing.T) {
	tests := []struct {
		key  cooldownKey
		want string
	}{
		{addressKey(common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")), "address 0x52908400098527886E0F7030069857D2E4169EE7"},
		{clientKey(netip.MustParseAddr("192.0.2.1")), "client 192.0.2.1"},
		{clientKey(netip.MustParseAddr("::ffff:192.0.2.1")), "client 192.0.2.1"},
		{clientKey(netip.MustParseAddr("2001:db8:1:2:3:4:5:6")), "client 2001:db8:1:2::/64"},
	}
	for _, tt := range tests {
		if got := tt.key.String(); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.key, got, tt.want)
		}
	}
}
