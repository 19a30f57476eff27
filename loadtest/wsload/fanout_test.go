package wsload

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Heads are measured per number, first to last arrival, in block order;
// a head first seen outside the window is left out, and one that missed a
// subscriber is counted.
func TestHeadSpans(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	subs := []*subscriber{
		{arrivals: []arrival{{number: 1, arrived: at(0), read: at(1)}, {number: 3, arrived: at(400), read: at(405)}, {number: 2, arrived: at(205), read: at(230)}}},
		{arrivals: []arrival{{number: 1, arrived: at(3), read: at(9)}, {number: 2, arrived: at(200), read: at(201)}}},
	}
	arrived := headSpans(subs, at(100), at(500), arrival.arrivedAt)
	if len(arrived) != 2 || arrived[0].number != 2 || arrived[1].number != 3 {
		t.Fatalf("heads %+v, want 2 and 3 in order (1 is before the window)", arrived)
	}
	if got := arrived[0].last.Sub(arrived[0].first); got != 5*time.Millisecond {
		t.Fatalf("head 2 spread %v, want 5ms", got)
	}
	heads, undelivered, spread := spreads(arrived, len(subs))
	if heads != 2 || undelivered != 1 || spread.Max != 5*time.Millisecond {
		t.Fatalf("spreads: %d heads, %d undelivered, %+v", heads, undelivered, spread)
	}

	path := filepath.Join(t.TempDir(), "heads.csv")
	if err := writeHeads(path, arrived, headSpans(subs, at(100), at(500), arrival.readAt)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "number,first_arrival_unix_ns,arrival_spread_us,read_spread_us\n" +
		"2,1000200000000,5000,29000\n" +
		"3,1000400000000,0,0\n"
	if string(b) != want {
		t.Fatalf("heads file:\n%s\nwant:\n%s", b, want)
	}
}
